package runner

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/lnbench/lnbench/internal/runs"
	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/usage"
)

// On fake nodes the only real actor is the harness: its samples show the
// tagging, the on/off param, and the probe once per storage kind.
func TestResourceSamplingOnOffAndProbes(t *testing.T) {
	runs.TmpfsRoot = t.TempDir()
	h := &harness{}
	s := smallScenario()
	s.Params = params("ResourceSampling", "on,off", "Storage", "disk,tmpfs", "TotalPayments", "6")
	opts := h.options(s, t)
	opts.DiskProbe = 50 * time.Millisecond
	run := newRun(t, s)
	rep, err := Execute(context.Background(), opts, run)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.DiskProbes) != 2 || rep.DiskProbes[0].Storage != "disk" || rep.DiskProbes[1].Storage != "tmpfs" || rep.DiskProbes[0].Syncs == 0 {
		t.Fatalf("probes: %+v", rep.DiskProbes)
	}
	samples, err := usage.Load(filepath.Join(run.Dir, usage.FileName))
	if err != nil {
		t.Fatal(err)
	}
	tags := map[string]int{}
	for _, smp := range samples {
		if smp.Actor != usage.RoleHarness || smp.Source != usage.SourceProc || smp.Network == "" {
			t.Fatalf("sample %+v", smp)
		}
		if smp.Case == "" {
			t.Fatalf("untagged sample %+v", smp)
		}
		tags[smp.Case+" "+smp.Phase]++
	}
	for _, st := range []string{"disk", "tmpfs"} {
		on := "ResourceSampling=on/Storage=" + st + "/TotalPayments=6"
		// The case's start and end and each of the 3 iterations' starts are
		// untagged (an interval belongs to its later sample); each
		// iteration's end carries its tag.
		if tags[on+" "] < 5 || tags[on+" "+result.Warmup] < 1 || tags[on+" "+result.Measure] < 2 {
			t.Errorf("%s: samples by phase %v", on, tags)
		}
		if off := "ResourceSampling=off/Storage=" + st + "/TotalPayments=6"; tags[off+" "]+tags[off+" "+result.Measure] != 0 {
			t.Errorf("%s sampled: %v", off, tags)
		}
	}
	last := samples[len(samples)-1]
	if !last.SyncsCounted {
		t.Logf("syncs not counted here: %v", rep.Warnings)
	}
}
