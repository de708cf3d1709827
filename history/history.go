// Package history follows benchmark results across the runs a user keeps:
// every artifacts folder under a directory becomes points, one per case
// and node build, grouped into series (scenario, case, build lineage,
// machine, and the run's design with the number of networks it measured
// at once), ordered by commit where the builds have commits and by time
// otherwise, with change points found by E-divisive means (package
// changepoint) on payments/s and on the median payment latency. A change
// that coincides with a shift of the machine's own readings (disk sync
// ceiling, CPU used outside the run, steal) is labelled an environment
// change, not a code change.
package history

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/lnbench/lnbench/changepoint"
	"github.com/lnbench/lnbench/gitrev"
	"github.com/lnbench/lnbench/stats"
)

// Point is one case of one run on one node build.
type Point struct {
	Dir      string    `json:"dir"`
	RunID    string    `json:"run_id"`
	Started  time.Time `json:"started"`
	Scenario string    `json:"scenario"`
	Case     string    `json:"case"` // params but Node
	// Build is the lineage the point belongs to: the release, or the
	// clone a source build came from (its commit is Commit), with the
	// profile and build options.
	Build   string `json:"build"`
	Label   string `json:"label"`
	Clone   string `json:"clone,omitempty"`
	Commit  string `json:"commit,omitempty"`
	Subject string `json:"subject,omitempty"`
	Dirty   bool   `json:"dirty,omitempty"`
	Machine string `json:"machine"` // fingerprint
	// MachineText is what the fingerprint hashes: CPU, cores, memory, OS.
	MachineText string `json:"machine_text"`
	// Design is the run's design (run.json's design: sequential,
	// interleaved, duet, …), DesignSingle for a run of one spec; Networks
	// how many networks it measured at the same moment: a duet round's
	// specs, else 1. Two networks at once each get half the machine, so a
	// duet's payments/s is not a single run's.
	Design         string  `json:"design"`
	Networks       int     `json:"networks"`
	PaymentsPerSec float64 `json:"payments_per_sec"`
	MeanSeconds    float64 `json:"mean_s"` // mean iteration time
	// P50Ms is the median latency of the case's successful measured
	// payments.
	P50Ms float64 `json:"p50_ms"`
	// OpenLoop: the case paced its payments (a rate), so its payments/s
	// follows the schedule and its latency is the figure.
	OpenLoop bool `json:"open_loop,omitempty"`
	// Control is the label and lineage of the run's baseline when the point
	// is another spec measured beside it, VsControl the point's payments/s
	// over the control's (the inverse of the time ratio) and P50VsControl
	// its median latency over the control's in the same case.
	Control      string  `json:"control,omitempty"`
	VsControl    float64 `json:"vs_control,omitempty"`
	P50VsControl float64 `json:"p50_vs_control,omitempty"`
	Env          Env     `json:"env"`
}

// DesignSingle is a run of one node spec (run.json records no design).
const DesignSingle = "single"

// Setup names how the point's network shared the machine: "duet, 2
// networks at once", "single spec, 1 network at a time".
func (p Point) Setup() string {
	design := p.Design
	if design == DesignSingle || design == "" {
		design = "single spec"
	}
	if p.Networks > 1 {
		return fmt.Sprintf("%s, %d networks at once", design, p.Networks)
	}
	return design + ", 1 network at a time"
}

// Env are the machine's readings during the run, to tell an environment
// change from a code change.
type Env struct {
	// DiskSyncsPerSec is the disk probe's sync ceiling (0: not probed).
	DiskSyncsPerSec float64 `json:"disk_syncs_per_sec,omitempty"`
	// OutsideCores is the CPU other processes used during the measured
	// iterations, in cores (-1: not measured).
	OutsideCores float64 `json:"outside_cores"`
	// StealShare is the host's steal time over its cores × wall time
	// (-1: not measured).
	StealShare float64 `json:"steal_share"`
	HostCores  float64 `json:"host_cores,omitempty"`
}

// Fingerprint is a machine's short hash over what decides its speed.
func Fingerprint(text string) string {
	h := sha256.Sum256([]byte(text))
	return hex.EncodeToString(h[:])[:8]
}

// What a track follows.
const (
	Throughput = "payments/s"
	Latency    = "p50 latency"
)

// Track is one figure of a series over its points, with its change points.
type Track struct {
	// Kind is Throughput or Latency.
	Kind string `json:"kind"`
	// Relative: the figure is the point's over the control's of the same
	// run (every point of the series has that control).
	Relative bool `json:"relative,omitempty"`
	// Metric names the figure: "payments/s", "p50 latency (ms)", or
	// either "relative to CONTROL".
	Metric  string   `json:"metric"`
	Changes []Change `json:"changes,omitempty"`
	Tests   int      `json:"tests"`
}

// Value is the point's figure in the track's metric.
func (t Track) Value(p Point) float64 {
	switch {
	case t.Kind == Latency && t.Relative:
		return p.P50VsControl
	case t.Kind == Latency:
		return p.P50Ms
	case t.Relative:
		return p.VsControl
	}
	return p.PaymentsPerSec
}

// Worse says whether a change's shift makes the figure worse: fewer
// payments/s, or a longer latency.
func (t Track) Worse(shift float64) bool {
	if t.Kind == Latency {
		return shift > 0
	}
	return shift < 0
}

// Series is the points of one scenario case on one build lineage (on one
// machine unless mixed) in one design, in order, with their change points
// on payments/s and on the median latency.
type Series struct {
	Scenario string `json:"scenario"`
	Case     string `json:"case"`
	Build    string `json:"build"`
	Machine  string `json:"machine"` // "" when machines are mixed
	// Design and Networks are the points' (Point): runs that shared the
	// machine differently are different series.
	Design   string  `json:"design"`
	Networks int     `json:"networks"`
	Points   []Point `json:"points"`
	// Order says how the points are ordered: "commit" or "time".
	Order      string   `json:"order"`
	Throughput Track    `json:"throughput"`
	Latency    Track    `json:"latency"`
	Alpha      float64  `json:"alpha"`
	Notes      []string `json:"notes,omitempty"`
}

// Setup names the series' design and networks at once (Point.Setup).
func (s Series) Setup() string { return s.Points[0].Setup() }

// Name is the series' title: scenario and case, build, design, and the
// machine when machines are not mixed.
func (s Series) Name() string {
	name := fmt.Sprintf("%s %s · %s · %s", s.Scenario, s.Case, s.Build, s.Setup())
	if s.Machine != "" {
		name += " · machine " + s.Machine
	}
	return name
}

// Tracks are the series' figures: payments/s, then latency.
func (s Series) Tracks() []Track { return []Track{s.Throughput, s.Latency} }

// Change is a change point: where it is, the builds on either side, and
// what it is attributed to.
type Change struct {
	changepoint.Point
	Last  Point `json:"last"`  // the last point of the old level
	First Point `json:"first"` // the first point of the new level
	// Kind is "code" or "environment"; Why names the readings that moved.
	Kind string `json:"kind"`
	Why  string `json:"why,omitempty"`
	// Bisect is the command that finds the commit, when both sides are
	// commits of one clone.
	Bisect string `json:"bisect,omitempty"`
}

// Options of Build.
type Options struct {
	// MixMachines puts runs of every machine in one series.
	MixMachines bool
	// CommitOrder gives each commit id its position (older first) for the
	// series whose points all have commits; nil orders by time.
	CommitOrder func(clone string) map[string]int
	Detect      changepoint.Options
}

// Build groups points into series, orders them (SortSeries) and finds
// change points on both tracks.
func Build(points []Point, opts Options) []Series {
	groups := map[string]*Series{}
	var keys []string
	for _, p := range points {
		if p.Design == "" {
			p.Design = DesignSingle
		}
		p.Networks = max(p.Networks, 1)
		machine := p.Machine
		if opts.MixMachines {
			machine = ""
		}
		key := strings.Join([]string{p.Scenario, p.Case, p.Build, machine, p.Design, fmt.Sprint(p.Networks)}, "\x00")
		s, ok := groups[key]
		if !ok {
			s = &Series{Scenario: p.Scenario, Case: p.Case, Build: p.Build, Machine: machine, Design: p.Design, Networks: p.Networks}
			groups[key] = s
			keys = append(keys, key)
		}
		s.Points = append(s.Points, p)
	}
	var out []Series
	for _, k := range keys {
		s := groups[k]
		order(s, opts.CommitOrder)
		s.Throughput = trackOf(Throughput, s.Points)
		s.Latency = trackOf(Latency, s.Points)
		s.Notes = append(s.Notes, shortNote(len(s.Points), opts.Detect)...)
		if s.Points[0].OpenLoop {
			s.Notes = append(s.Notes, "open loop: payments/s follows the schedule (it drops only when the nodes cannot keep up); the latency is the figure, and bisect compares it (--metric p50)")
		}
		for _, t := range []*Track{&s.Throughput, &s.Latency} {
			detect(s, t, opts.Detect)
		}
		out = append(out, *s)
	}
	SortSeries(out)
	return out
}

// shortNote says when a series is too short for any change point: fewer
// than two segments' worth of points, or so few that no order of them is
// rare enough for the level (a permutation test of n points split in
// halves cannot give a p below about 2/C(n, n/2): 0.1 for 6 points, 0.057
// for 7, 0.029 for 8).
func shortNote(n int, o changepoint.Options) []string {
	minSize, alpha := o.MinSize, o.Alpha
	if minSize == 0 {
		minSize = 3
	}
	if alpha == 0 {
		alpha = 0.05
	}
	if n < 2*minSize {
		return []string{fmt.Sprintf("%d point(s): change points need at least %d on each side", n, minSize)}
	}
	floor := 2 / binomial(n, n/2)
	if floor >= alpha {
		return []string{fmt.Sprintf("%d points: a permutation test of %d points cannot give a p below about %.3f, and α is %g; a change point needs more runs (8 at α = 0.05)", n, n, floor, alpha)}
	}
	return nil
}

func binomial(n, k int) float64 {
	c := 1.0
	for i := 1; i <= k; i++ {
		c = c * float64(n-k+i) / float64(i)
	}
	return c
}

// SortSeries orders series as the report orders cases: by scenario, then
// case in the natural order of its params (Concurrency=2 before
// Concurrency=10), then build, machine, and setup (fewest networks at
// once first).
func SortSeries(ss []Series) {
	sort.SliceStable(ss, func(i, j int) bool {
		a, b := ss[i], ss[j]
		if a.Scenario != b.Scenario {
			return a.Scenario < b.Scenario
		}
		if c := CompareCases(a.Case, b.Case); c != 0 {
			return c < 0
		}
		if a.Build != b.Build {
			return a.Build < b.Build
		}
		if a.Machine != b.Machine {
			return a.Machine < b.Machine
		}
		if a.Networks != b.Networks {
			return a.Networks < b.Networks
		}
		return a.Design < b.Design
	})
}

// CompareCases orders two case keys ("Concurrency=2/TotalPayments=60")
// param by param, each value in its natural order: numbers and durations
// by size, other values with their digit runs compared as numbers.
func CompareCases(a, b string) int {
	pa, pb := strings.Split(a, "/"), strings.Split(b, "/")
	for i := 0; i < len(pa) && i < len(pb); i++ {
		na, va, _ := strings.Cut(pa[i], "=")
		nb, vb, _ := strings.Cut(pb[i], "=")
		if na != nb {
			return strings.Compare(na, nb)
		}
		if c := compareValues(va, vb); c != 0 {
			return c
		}
	}
	return len(pa) - len(pb)
}

func compareValues(a, b string) int {
	if x, ok := numberOf(a); ok {
		if y, ok := numberOf(b); ok && x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return naturalCompare(a, b)
}

// numberOf reads a param value as a number: a plain one, or a duration
// (in seconds).
func numberOf(v string) (float64, bool) {
	if x, err := strconv.ParseFloat(v, 64); err == nil {
		return x, true
	}
	if d, err := time.ParseDuration(v); err == nil {
		return d.Seconds(), true
	}
	return 0, false
}

// naturalCompare compares strings with each run of digits taken as a
// number: "node2" before "node10".
func naturalCompare(a, b string) int {
	for a != "" && b != "" {
		da, db := digits(a), digits(b)
		if da > 0 && db > 0 {
			x, y := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if len(x) != len(y) {
				return len(x) - len(y)
			}
			if c := strings.Compare(x, y); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return int(a[0]) - int(b[0])
		}
		a, b = a[1:], b[1:]
	}
	return len(a) - len(b)
}

func digits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// order sorts by commit position when every point has a commit of one
// clone whose order is known, else by start time.
func order(s *Series, commitOrder func(string) map[string]int) {
	s.Order = "time"
	byTime := func(i, j int) bool { return s.Points[i].Started.Before(s.Points[j].Started) }
	sort.SliceStable(s.Points, byTime)
	if commitOrder == nil {
		return
	}
	clone := s.Points[0].Clone
	for _, p := range s.Points {
		if p.Commit == "" || p.Clone != clone || p.Dirty {
			return
		}
	}
	pos := commitOrder(clone)
	for _, p := range s.Points {
		if _, ok := pos[p.Commit]; !ok {
			s.Notes = append(s.Notes, fmt.Sprintf("ordered by time: commit %s is not in %s's history", gitrev.ShortID(p.Commit), clone))
			return
		}
	}
	sort.SliceStable(s.Points, func(i, j int) bool { return pos[s.Points[i].Commit] < pos[s.Points[j].Commit] })
	s.Order = "commit"
}

// trackOf is relative to the control when every point has the same one
// with the figure's ratio.
func trackOf(kind string, ps []Point) Track {
	t := Track{Kind: kind, Relative: true}
	control := ps[0].Control
	for _, p := range ps {
		ratio := p.VsControl
		if kind == Latency {
			ratio = p.P50VsControl
		}
		if control == "" || p.Control != control || !(ratio > 0) {
			t.Relative = false
		}
	}
	unit := ""
	if kind == Latency {
		unit = " (ms)"
	}
	t.Metric = kind + unit
	if t.Relative {
		t.Metric = kind + " relative to " + control
	}
	return t
}

func detect(s *Series, t *Track, o changepoint.Options) {
	xs := make([]float64, len(s.Points))
	for i, p := range s.Points {
		xs[i] = t.Value(p)
	}
	res := changepoint.Detect(xs, o)
	t.Tests, s.Alpha = res.Tests, res.Alpha
	for _, cp := range res.Points {
		c := Change{Point: cp, Last: s.Points[cp.Index-1], First: s.Points[cp.Index], Kind: "code"}
		c.Why = envShift(s.Points, res.Points, cp.Index)
		if c.Why != "" {
			c.Kind = "environment"
		}
		if c.Last.Commit != "" && c.First.Commit != "" && c.Last.Clone == c.First.Clone && c.Last.Commit != c.First.Commit {
			switch {
			case t.Kind == Latency:
				c.Bisect = bisectCommand(s, c, " --metric p50")
			case !c.First.OpenLoop:
				// An open loop's bisect compares p50: the latency track's command.
				c.Bisect = bisectCommand(s, c, "")
			}
		}
		t.Changes = append(t.Changes, c)
	}
}

func bisectCommand(s *Series, c Change, extra string) string {
	return fmt.Sprintf("lnbench bisect --node %s@src:%s --good %s --bad %s --case %s%s", implOf(s.Build), c.Last.Clone, gitrev.ShortID(c.Last.Commit), gitrev.ShortID(c.First.Commit), s.Case, extra)
}

// envShift names the machine readings that moved at index: compared over
// the two segments the change point separates (each bounded by its
// neighbouring change points).
func envShift(ps []Point, cps []changepoint.Point, index int) string {
	lo, hi := 0, len(ps)
	for _, cp := range cps {
		if cp.Index < index && cp.Index > lo {
			lo = cp.Index
		}
		if cp.Index > index && cp.Index < hi {
			hi = cp.Index
		}
	}
	before, after := ps[lo:index], ps[index:hi]
	var why []string
	if b, a := meanOf(before, func(p Point) float64 { return p.Env.DiskSyncsPerSec }), meanOf(after, func(p Point) float64 { return p.Env.DiskSyncsPerSec }); b > 0 && a > 0 && math.Abs(a/b-1) > 0.25 {
		why = append(why, fmt.Sprintf("disk sync ceiling %.0f → %.0f syncs/s", b, a))
	}
	host := meanOf(append(append([]Point(nil), before...), after...), func(p Point) float64 { return p.Env.HostCores })
	busy := math.Max(0.25, 0.05*host)
	if b, a := meanOf(before, func(p Point) float64 { return p.Env.OutsideCores }), meanOf(after, func(p Point) float64 { return p.Env.OutsideCores }); b >= 0 && a >= 0 && math.Abs(a-b) > busy {
		why = append(why, fmt.Sprintf("CPU used outside the run %.2f → %.2f cores", b, a))
	}
	if b, a := meanOf(before, func(p Point) float64 { return p.Env.StealShare }), meanOf(after, func(p Point) float64 { return p.Env.StealShare }); b >= 0 && a >= 0 && math.Abs(a-b) > 0.05 {
		why = append(why, fmt.Sprintf("CPU steal %.1f%% → %.1f%%", 100*b, 100*a))
	}
	return strings.Join(why, "; ")
}

// meanOf averages f over ps, skipping unmeasured (negative) readings; -1
// when none was measured.
func meanOf(ps []Point, f func(Point) float64) float64 {
	var measured []float64
	for _, p := range ps {
		if v := f(p); v >= 0 {
			measured = append(measured, v)
		}
	}
	if len(measured) == 0 {
		return -1
	}
	return stats.Mean(measured)
}

func implOf(build string) string {
	impl, _, _ := strings.Cut(build, "@")
	return impl
}
