package record

import (
	"github.com/lnbench/lnbench/faults"
	"github.com/lnbench/lnbench/record/chanstate"
	"github.com/lnbench/lnbench/record/traces"
	"github.com/lnbench/lnbench/scenario"
	"github.com/lnbench/lnbench/usage"
)

// The files of an artifacts folder that the runner writes and the report
// reads. A stream whose package writes it keeps its own name there (those
// packages sit below this one); the constants here repeat them so a reader
// of the folder finds every name in one place.
const (
	// ManifestFile is the run's manifest (Manifest), written by the runner
	// when the run ends.
	ManifestFile = "run.json"
	// SummaryFile is the derived summary the report writes. Folders from
	// before the manifest have no ManifestFile; their summary is read back
	// as the run's record instead.
	SummaryFile = "summary.json"
	// PaymentsFile is the per-payment record stream (package result).
	PaymentsFile = "payments.jsonl"
	// ScenarioFile is the scenario as run, so `lnbench run <folder>` reruns
	// it; TopologyFile its topology when that came from a file or one
	// generated graph.
	ScenarioFile = scenario.FileName
	TopologyFile = "topology.yml"

	ResourcesFile = usage.FileName     // resource samples
	ChannelsFile  = chanstate.FileName // channel readings
	FaultsFile    = faults.FileName    // injected faults
	TracesFile    = traces.IndexFile   // index of profiling windows
)
