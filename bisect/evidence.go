package bisect

import (
	"math"
	"sort"

	"github.com/lnbench/lnbench/gitrev"
)

// Row is one revision of the evidence table: where it sits in the range,
// its ratio to good and how it was placed.
type Row struct {
	Position int           `json:"position"` // 0 is good, the last is bad
	Commit   gitrev.Commit `json:"commit"`
	// ToGood is the ratio of its mean iteration time to good's (above 1
	// is slower), with its interval: measured directly for bad, and for a
	// step through the step's good end (its ratio to that end times the
	// end's ratio to good; log half-widths added in quadrature).
	ToGood     float64 `json:"to_good"`
	ToGoodLow  float64 `json:"to_good_low"`
	ToGoodHigh float64 `json:"to_good_high"`
	// Alpha is the level of that interval (1-Alpha): its run's, or through
	// a step's good end the lowest confidence of the runs combined; CI
	// names it ("99% CI").
	Alpha float64 `json:"alpha,omitempty"`
	CI    string  `json:"ci,omitempty"`
	// Margin is a step's margin (Step.Margin); 0 for the ends.
	Margin   float64     `json:"margin,omitempty"`
	Direct   bool        `json:"direct"` // measured in one run with good itself
	Class    Class       `json:"class"`
	VsLo     *Comparison `json:"vs_lo,omitempty"`
	VsHi     *Comparison `json:"vs_hi,omitempty"`
	Launches int         `json:"launches"`
	Step     int         `json:"step"` // 0: the ends run; then the step that measured it
	Dir      string      `json:"dir,omitempty"`
	Note     string      `json:"note,omitempty"`
}

// Evidence is every measured (or skipped) revision, in range order.
func Evidence(r Result) []Row {
	pos := map[string]int{}
	for i, c := range r.Revisions {
		pos[c.ID] = i
	}
	// ratio, log half-width low, log half-width high, alpha
	toGood := map[string][4]float64{}
	var rows []Row
	if r.Ends.Good.ID != "" {
		c := r.Ends.BadVsGood
		toGood[r.Ends.Good.ID] = [4]float64{1, 0, 0, c.Alpha}
		rows = append(rows, Row{Position: 0, Commit: r.Ends.Good, ToGood: 1, ToGoodLow: 1, ToGoodHigh: 1, Alpha: c.Alpha, CI: c.CI(),
			Direct: true, Class: "good", Dir: r.Ends.Dir, Launches: r.Ends.Launches})
		toGood[r.Ends.Bad.ID] = [4]float64{c.Ratio, logWidth(c.Ratio, c.Low), logWidth(c.High, c.Ratio), c.Alpha}
		rows = append(rows, Row{Position: pos[r.Ends.Bad.ID], Commit: r.Ends.Bad, ToGood: c.Ratio, ToGoodLow: c.Low, ToGoodHigh: c.High,
			Alpha: c.Alpha, CI: c.CI(), Direct: true, Class: "bad", VsLo: &c, Launches: r.Ends.Launches, Dir: r.Ends.Dir, Note: r.Ends.Note})
	}
	for i, s := range r.Steps {
		row := Row{Position: pos[s.Subject.ID], Commit: s.Subject, Class: s.Class, Margin: s.Margin, Launches: s.Launches, Step: i + 1, Dir: s.Dir, Note: s.Note}
		vsLo, vsHi := s.VsLo, s.VsHi
		row.VsLo, row.VsHi = &vsLo, &vsHi
		if end, ok := toGood[s.Lo.ID]; ok {
			// Half-widths at one level add in quadrature at that level;
			// at two, the result is labelled at the lower confidence.
			lw := math.Hypot(end[1], logWidth(vsLo.Ratio, vsLo.Low))
			hw := math.Hypot(end[2], logWidth(vsLo.High, vsLo.Ratio))
			ratio := end[0] * vsLo.Ratio
			alpha := vsLo.Alpha
			if end[3] == 0 || alpha == 0 {
				alpha = 0
			} else {
				alpha = math.Max(alpha, end[3])
			}
			row.ToGood, row.ToGoodLow, row.ToGoodHigh = ratio, ratio*math.Exp(-lw), ratio*math.Exp(hw)
			row.Alpha, row.CI = alpha, CILabel(alpha)
			row.Direct = s.Lo.ID == r.Ends.Good.ID
			toGood[s.Subject.ID] = [4]float64{ratio, lw, hw, alpha}
		}
		rows = append(rows, row)
	}
	for _, sk := range r.Skipped {
		rows = append(rows, Row{Position: pos[sk.Commit.ID], Commit: sk.Commit, Class: Skipped, Note: sk.Why})
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Position < rows[j].Position })
	return rows
}

// logWidth is log(a/b), 0 when either is not a ratio.
func logWidth(a, b float64) float64 {
	if !(a > 0 && b > 0) {
		return 0
	}
	return math.Abs(math.Log(a / b))
}
