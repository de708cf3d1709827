// Package record is the run's record: what a run leaves in its artifacts
// folder. This package holds the folder's layout (every file's name, in
// files.go) and the manifest (run.json), the run's facts that no stream
// holds; the streams are its subpackages, result (payments.jsonl), chanstate
// (channels.jsonl) and traces (traces.jsonl), except two whose records are
// their packages' domain: faults (faults.jsonl, beside the fault specs)
// and usage (resources.jsonl, beside the roles and the rest of resource
// accounting). The runner writes the record, the report reads it; neither
// needs the other.
package record

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/lnbench/lnbench/internal/envinfo"
	"github.com/lnbench/lnbench/scenario"
	"github.com/lnbench/lnbench/usage"
)

// Manifest is the record of one run: what ran where, how it was set up,
// and what the runner noted. Everything derived from the streams (cases,
// verdicts, costs per payment) is the report's, recomputed on every load.
type Manifest struct {
	RunID    string            `json:"run_id"`
	Started  time.Time         `json:"started"`
	Finished time.Time         `json:"finished"`
	Scenario scenario.Scenario `json:"scenario"`
	Backend  string            `json:"backend"`
	Env      envinfo.Env       `json:"environment"`
	// Nodes lists one NodeInfo per node spec: the compared specs first,
	// then any a topology node pins (mixed networks).
	Nodes []NodeInfo `json:"nodes"`
	Setup []Setup    `json:"setup"`
	// Teardown is the wall time of each network's close, in the same form:
	// its samplers stopped ("samplers", a profile's flame graphs drawn),
	// its logs and forwards collected ("logs"), then its removal
	// ("teardown"). A run's wall time is setup, cases and these.
	Teardown []Setup `json:"teardown,omitempty"`
	// Costs are what each network cost this machine at ready (memory, CPU).
	Costs []NetworkCost `json:"network_costs,omitempty"`
	// Forwards counts the HTLCs each node forwarded, per network: proof that
	// multi-hop payments really crossed the intermediaries.
	Forwards []Forward `json:"forwards,omitempty"`
	// Placement says which engine ran each service (swarm backend).
	Placement []Placement `json:"placement,omitempty"`
	// Design is how a comparison of specs ordered its launches; nil for a
	// run of one spec and for runs written before it was recorded.
	Design *Design `json:"design,omitempty"`
	// Snapshots are the snapshots the networks were restored from, one per
	// network (none when every network was built).
	Snapshots []NetworkSnapshot `json:"snapshots,omitempty"`
	// Warnings are what the run recorded (notes, an early end, skipped
	// sweep steps): written once, kept as they are by later reports.
	Warnings []string `json:"warnings,omitempty"`
	// HarnessCPUSeconds is the harness process's own CPU time during the run.
	HarnessCPUSeconds float64 `json:"harness_cpu_seconds"`
	WallSeconds       float64 `json:"wall_seconds"`
	// HarnessProfile names the harness's own CPU profile in the folder
	// (lnbench run --harness-profile); empty when none was taken.
	HarnessProfile string `json:"harness_profile,omitempty"`
	// DiskProbes are the sync ceilings measured where node data dirs live,
	// one per storage kind the run used.
	DiskProbes []usage.DiskProbe `json:"disk_probes,omitempty"`
}

// Write records m as dir's ManifestFile. It goes through a temporary file,
// so a reader never sees half a manifest.
func Write(dir string, m Manifest) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, "."+ManifestFile+".tmp")
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, ManifestFile))
}

// Read loads dir's ManifestFile; the error wraps os.ErrNotExist for a
// folder written before manifests (see SummaryFile).
func Read(dir string) (Manifest, error) {
	var m Manifest
	path := filepath.Join(dir, ManifestFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return m, fmt.Errorf("%s: %v", path, err)
	}
	return m, nil
}

// NetworkSnapshot is the snapshot one network was restored from.
type NetworkSnapshot struct {
	Network string    `json:"network"`
	Key     string    `json:"key"`
	Made    time.Time `json:"made"`
	By      string    `json:"by"`
	Bytes   int64     `json:"bytes"`
	// MadeByThisRun: the cache had none, so this run built the network
	// once, saved it, and restored it like every later launch.
	MadeByThisRun bool `json:"made_by_this_run,omitempty"`
}
