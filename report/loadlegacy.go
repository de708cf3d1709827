package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/lnbench/lnbench/record"
	"github.com/lnbench/lnbench/scenario"
)

// loadLegacy reads the record of a folder written before run.json: its
// summary.json held the run's facts beside the derived ones (which Load
// recomputes). A folder without even that (a run killed before its
// reports) still has scenario.yml, so its cases can be summarized with
// the node specs the scenario names.
func loadLegacy(dir string) (Report, error) {
	var rep Report
	path := filepath.Join(dir, record.SummaryFile)
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		if err := json.Unmarshal(data, &rep); err != nil {
			return rep, fmt.Errorf("%s: %v", path, err)
		}
		return rep, nil
	case !errors.Is(err, os.ErrNotExist):
		return rep, err
	}
	s, err := scenario.Load(filepath.Join(dir, record.ScenarioFile))
	if err != nil {
		return rep, fmt.Errorf("%s has neither %s nor %s nor a readable %s: %v", dir, record.ManifestFile, record.SummaryFile, record.ScenarioFile, err)
	}
	rep.RunID, rep.Scenario = filepath.Base(dir), s
	rep.Warnings = []string{record.ManifestFile + " missing: environment and setup times unknown"}
	for _, sp := range s.Specs() {
		rep.Nodes = append(rep.Nodes, record.NodeInfo{Label: sp.Label, Baseline: sp.Label == s.Baseline,
			Implementation: sp.Implementation(), Version: sp.Version(), Build: sp.Build})
	}
	return rep, nil
}

// dropLegacyAnalysisWarnings removes, from a summary.json written before
// the analysis warnings had their own field, the copies it stored among the
// run's warnings: Summarize has just recomputed them. A manifest never
// holds them, so only the legacy path needs this.
func dropLegacyAnalysisWarnings(rep *Report) {
	rep.Warnings = slices.DeleteFunc(rep.Warnings, func(w string) bool { return slices.Contains(rep.AnalysisWarnings, w) })
}
