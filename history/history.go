// Package history follows benchmark results across the runs a user keeps:
// every artifacts folder under a directory becomes points, one per case
// and node build, grouped into series (scenario, case, build lineage,
// machine), ordered by commit where the builds have commits and by time
// otherwise, with change points found by E-divisive means (package
// changepoint). A change that coincides with a shift of the machine's own
// readings (disk sync ceiling, CPU used outside the run, steal) is labelled
// an environment change, not a code change.
package history

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/lnbench/lnbench/changepoint"
	"github.com/lnbench/lnbench/gitrev"
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
	MachineText    string  `json:"machine_text"`
	PaymentsPerSec float64 `json:"payments_per_sec"`
	MeanSeconds    float64 `json:"mean_s"` // mean iteration time
	// Control is the label and lineage of the run's baseline when the point
	// is another spec measured beside it, and VsControl the point's
	// payments/s over the control's (the inverse of the time ratio).
	Control   string  `json:"control,omitempty"`
	VsControl float64 `json:"vs_control,omitempty"`
	Env       Env     `json:"env"`
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

// Series is the points of one scenario case on one build lineage (on one
// machine unless mixed), in order, with their change points.
type Series struct {
	Scenario string  `json:"scenario"`
	Case     string  `json:"case"`
	Build    string  `json:"build"`
	Machine  string  `json:"machine"` // "" when machines are mixed
	Points   []Point `json:"points"`
	// Order says how the points are ordered: "commit" or "time".
	Order string `json:"order"`
	// Metric is what the change points were found on: "payments/s" or
	// "payments/s relative to CONTROL" (every point has that control).
	Metric  string   `json:"metric"`
	Changes []Change `json:"changes,omitempty"`
	Tests   int      `json:"tests"`
	Alpha   float64  `json:"alpha"`
	Notes   []string `json:"notes,omitempty"`
}

// Value is the point's figure in the series' metric.
func (s Series) Value(p Point) float64 {
	if s.relative() {
		return p.VsControl
	}
	return p.PaymentsPerSec
}

func (s Series) relative() bool { return strings.HasPrefix(s.Metric, "payments/s relative") }

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

// Build groups points into series, orders them and finds change points.
func Build(points []Point, opts Options) []Series {
	groups := map[string]*Series{}
	var keys []string
	for _, p := range points {
		machine := p.Machine
		if opts.MixMachines {
			machine = ""
		}
		key := strings.Join([]string{p.Scenario, p.Case, p.Build, machine}, "\x00")
		s, ok := groups[key]
		if !ok {
			s = &Series{Scenario: p.Scenario, Case: p.Case, Build: p.Build, Machine: machine}
			groups[key] = s
			keys = append(keys, key)
		}
		s.Points = append(s.Points, p)
	}
	sort.Strings(keys)
	var out []Series
	for _, k := range keys {
		s := groups[k]
		order(s, opts.CommitOrder)
		s.Metric = metricOf(s.Points)
		detect(s, opts.Detect)
		out = append(out, *s)
	}
	return out
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

// metricOf is relative to the control when every point has the same one.
func metricOf(ps []Point) string {
	control := ps[0].Control
	if control == "" {
		return "payments/s"
	}
	for _, p := range ps {
		if p.Control != control || !(p.VsControl > 0) {
			return "payments/s"
		}
	}
	return "payments/s relative to " + control
}

func detect(s *Series, o changepoint.Options) {
	xs := make([]float64, len(s.Points))
	for i, p := range s.Points {
		xs[i] = s.Value(p)
	}
	res := changepoint.Detect(xs, o)
	s.Tests, s.Alpha = res.Tests, res.Alpha
	if n := len(xs); n < 6 {
		s.Notes = append(s.Notes, fmt.Sprintf("%d point(s): change points need at least 3 on each side", n))
	}
	for _, cp := range res.Points {
		c := Change{Point: cp, Last: s.Points[cp.Index-1], First: s.Points[cp.Index], Kind: "code"}
		c.Why = envShift(s.Points, res.Points, cp.Index)
		if c.Why != "" {
			c.Kind = "environment"
		}
		if c.Last.Commit != "" && c.First.Commit != "" && c.Last.Clone == c.First.Clone && c.Last.Commit != c.First.Commit {
			c.Bisect = fmt.Sprintf("lnbench bisect --node %s@src:%s --good %s --bad %s --case %s", implOf(s.Build), c.Last.Clone, gitrev.ShortID(c.Last.Commit), gitrev.ShortID(c.First.Commit), s.Case)
		}
		s.Changes = append(s.Changes, c)
	}
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
	sum, n := 0.0, 0
	for _, p := range ps {
		if v := f(p); v >= 0 {
			sum += v
			n++
		}
	}
	if n == 0 {
		return -1
	}
	return sum / float64(n)
}

func implOf(build string) string {
	impl, _, _ := strings.Cut(build, "@")
	return impl
}
