package report

import (
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/usage"
)

// withHost adds the host pseudo-actor to every snapshot of the resources
// fixture: its busy CPU is the actors' plus outside cores of other load
// (by case id) since the snapshot series began.
func withHost(samples []usage.Sample, outside map[string]float64) []usage.Sample {
	type key struct {
		net string
		at  time.Time
	}
	sum := map[key]usage.Sample{}
	var order []key
	first := map[string]time.Time{}
	for _, s := range samples {
		k := key{s.Network, s.Time}
		h, ok := sum[k]
		if !ok {
			h = usage.Sample{Time: s.Time, Network: s.Network, Case: s.Case, Phase: s.Phase, Iteration: s.Iteration,
				Actor: usage.RoleHost, Role: usage.RoleHost, Source: usage.SourceProcStat, CPULimit: 2}
			order = append(order, k)
		}
		if f, ok := first[s.Network]; !ok || s.Time.Before(f) {
			first[s.Network] = s.Time
		}
		h.CPUUserSeconds += s.CPUSeconds()
		sum[k] = h
	}
	out := append([]usage.Sample(nil), samples...)
	for _, k := range order {
		h := sum[k]
		h.CPUUserSeconds += outside[strings.TrimPrefix(k.net, "n")] * k.at.Sub(first[k.net]).Seconds()
		out = append(out, h)
	}
	return out
}

// An artifacts folder whose resources.jsonl has host samples: the case
// with a core of other load is busy (warning, JSON field, resources line),
// the quiet one is not.
func TestLoadBusyHost(t *testing.T) {
	const busyCase, quietCase = "Concurrency=10/Storage=disk/ResourceSampling=on", "Concurrency=10/Storage=tmpfs/ResourceSampling=on"
	want := fixtureResourceReport()
	recs, samples := resourceFixture()
	samples = withHost(samples, map[string]float64{busyCase: 1, quietCase: 0.02})
	dir := t.TempDir()
	if err := writeFile(filepath.Join(dir, "summary.json"), func(w io.Writer) error { return JSON(w, want) }); err != nil {
		t.Fatal(err)
	}
	rw, _ := result.Create(filepath.Join(dir, "payments.jsonl"))
	for _, rec := range recs {
		rw.Write(rec)
	}
	rw.Close()
	uw, _ := usage.Create(filepath.Join(dir, usage.FileName))
	for _, s := range samples {
		uw.Write(s)
	}
	uw.Close()
	got, _, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for id, wantCores := range map[string]float64{busyCase: 1, quietCase: 0.02} {
		rc, ok := got.ResourcesOf(id)
		if !ok || rc.Outside == nil {
			t.Fatalf("%s: no outside figure", id)
		}
		if o := rc.Outside; o.Cores < wantCores-0.001 || o.Cores > wantCores+0.001 || o.Busy != (wantCores > 0.25) {
			t.Errorf("%s: outside %+v, want %.2f cores", id, *o, wantCores)
		}
		for _, a := range rc.Actors {
			if a.Role == usage.RoleHost {
				t.Errorf("%s: host in the actors table", id)
			}
		}
	}
	var md bytes.Buffer
	if err := Markdown(&md, got); err != nil {
		t.Fatal(err)
	}
	warn := "busy machine: other processes used 1.00 cores (50% of the host) during the measured iterations of " + busyCase
	if s := md.String(); !strings.Contains(s, warn) || strings.Contains(s, "measured iterations of "+quietCase) ||
		!strings.Contains(s, "Outside the run: other processes used 0.02 cores") {
		t.Errorf("summary.md lacks the busy warning or the outside lines:\n%s", s)
	}
	var js bytes.Buffer
	if err := JSON(&js, got); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if rc, _ := back.ResourcesOf(busyCase); rc.Outside == nil || !rc.Outside.Busy {
		t.Errorf("summary.json: busy flag lost")
	}
}
