package history

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/lnbench/lnbench/gitrev"
	"github.com/lnbench/lnbench/internal/jsonl"
	"github.com/lnbench/lnbench/record"
	"github.com/lnbench/lnbench/report"
	"github.com/lnbench/lnbench/scenario"
	"github.com/lnbench/lnbench/usage"
)

// Load reads every artifacts folder under root (any depth: a bisect's
// step folders count) into points; a folder that cannot be read is named
// in skipped, not fatal.
func Load(root string) (points []Point, skipped []string, err error) {
	var dirs []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && d.Name() == record.ManifestFile {
			dirs = append(dirs, filepath.Dir(path))
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("history: %v", err)
	}
	if len(dirs) == 0 {
		return nil, nil, fmt.Errorf("history: no artifacts folders (with %s) under %s; give the folder your runs write into (--artifacts)", record.ManifestFile, root)
	}
	sort.Strings(dirs)
	for _, dir := range dirs {
		ps, err := loadRun(dir)
		if err != nil {
			skipped = append(skipped, fmt.Sprintf("%s: %v", dir, err))
			continue
		}
		points = append(points, ps...)
	}
	return points, skipped, nil
}

// loadRun is one folder's points: one per measured case.
func loadRun(dir string) ([]Point, error) {
	rep, _, err := report.Load(dir)
	if err != nil {
		return nil, err
	}
	machineText := fmt.Sprintf("%s; %d cores; %d GiB; %s", rep.Env.CPU, rep.Env.Cores, (rep.Env.MemoryMiB+512)>>10, rep.Env.OS)
	env := runEnv(dir, rep)
	nodes := map[string]record.NodeInfo{}
	for _, n := range rep.Nodes {
		nodes[n.Label] = n
	}
	baseline := rep.BaselineLabel()
	design, networks := designOf(rep)
	// The control's median latency per case, for the others' ratio to it.
	controlP50 := map[string]float64{}
	for _, c := range rep.Cases {
		if baseline != "" && c.Node == baseline {
			controlP50[report.CaseKey(c)] = c.Latency.P50
		}
	}
	var out []Point
	for _, c := range rep.Cases {
		if c.Payments == 0 || c.PaymentsPerSec == 0 {
			continue
		}
		n := nodes[c.Node]
		if c.Node == "" && len(rep.Nodes) > 0 {
			n = rep.Nodes[0]
		}
		p := Point{Dir: dir, RunID: rep.RunID, Started: rep.Started, Scenario: rep.Scenario.Name, Case: report.CaseKey(c),
			Build: lineageOf(n), Label: n.Label, Commit: n.Commit, Subject: n.Subject, Dirty: n.Dirty,
			Machine: Fingerprint(machineText), MachineText: machineText, Design: design, Networks: networks,
			PaymentsPerSec: c.PaymentsPerSec, MeanSeconds: c.Time.Mean, P50Ms: c.Latency.P50, OpenLoop: c.OfferedPerSec > 0, Env: env}
		if n.Source != "" {
			p.Clone = n.Source
		}
		p.Env.OutsideCores = outsideOf(rep, c.ID)
		if baseline != "" && c.Node != baseline && c.Ratio != nil && c.Ratio.Of > 0 {
			p.Control = baseline + " (" + lineageOf(nodes[baseline]) + ")"
			p.VsControl = 1 / c.Ratio.Of
			if base := controlP50[report.CaseKey(c)]; base > 0 && c.Latency.P50 > 0 {
				p.P50VsControl = c.Latency.P50 / base
			}
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, errors.New("no measured case")
	}
	return out, nil
}

// designOf is the run's design and how many networks it measured at the
// same moment: a duet round's specs, one otherwise (sequential runs one
// network at a time; interleaved has a round's networks up together but
// alternates their measured iterations). A run of one spec records no
// design.
func designOf(rep report.Report) (string, int) {
	d := rep.Design
	if d == nil {
		return DesignSingle, 1
	}
	if d.Name != scenario.DesignDuet {
		return d.Name, 1
	}
	n := 0
	for _, r := range d.Rounds {
		n = max(n, len(r))
	}
	if n == 0 {
		n = len(rep.Nodes)
	}
	return d.Name, max(n, 1)
}

// lineageOf names a build's series: the release, or the clone a source
// build came from, with what else changes the binaries or the config.
func lineageOf(n record.NodeInfo) string {
	build := n.Build
	if i := strings.Index(build, "#"); i >= 0 {
		build = build[:i] // a revision: the commit is the point's, the clone the series'
	}
	if build == "" {
		build = n.Implementation + "@" + n.Version
	}
	parts := []string{build}
	if n.Profile != "" {
		parts = append(parts, "profile "+n.Profile)
	}
	if n.BuildOptions != "" {
		parts = append(parts, n.BuildOptions)
	}
	if n.PGOHash != "" {
		parts = append(parts, "pgo "+gitrev.ShortID(n.PGOHash))
	}
	return strings.Join(parts, ", ")
}

func outsideOf(rep report.Report, caseID string) float64 {
	for _, c := range rep.Resources {
		if c.ID == caseID && c.Outside != nil {
			return c.Outside.Cores
		}
	}
	return -1
}

// runEnv is the disk probe and the host's steal share over the run.
func runEnv(dir string, rep report.Report) Env {
	e := Env{OutsideCores: -1, StealShare: -1, HostCores: float64(rep.Env.Cores)}
	if len(rep.DiskProbes) > 0 {
		e.DiskSyncsPerSec = rep.DiskProbes[0].SyncsPerSecond
	}
	samples, _ := jsonl.Load[usage.Sample](filepath.Join(dir, record.ResourcesFile), record.ResourcesFile)
	// Steal is recorded since 2026-11-26 (older host samples read as 0).
	var first, last *usage.Sample
	for i := range samples {
		if s := &samples[i]; s.Role == usage.RoleHost {
			if first == nil {
				first = s
			}
			last = s
		}
	}
	if first != nil && last != first {
		if secs := last.Time.Sub(first.Time).Seconds(); secs > 0 && first.CPULimit > 0 {
			e.StealShare = (last.CPUStealSeconds - first.CPUStealSeconds) / secs / first.CPULimit
		}
	}
	return e
}
