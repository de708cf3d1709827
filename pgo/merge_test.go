package pgo

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"github.com/lnbench/lnbench/nodebuild"
	"github.com/lnbench/lnbench/record/traces"
)

// cpuProfile is a small CPU profile in the shape Go's pprof endpoint
// serves: samples/count and cpu/nanoseconds, one sample per stack.
func cpuProfile(stacks map[string]int64) *profile.Profile {
	p := &profile.Profile{
		SampleType:    []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType:    &profile.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:        10_000_000,
		DurationNanos: int64(time.Second),
		Mapping:       []*profile.Mapping{{ID: 1, Start: 0x400000, Limit: 0x800000, File: "/bin/lnd", HasFunctions: true}},
	}
	funcs := map[string]*profile.Function{}
	var id uint64
	for _, name := range sortedKeys(stacks) {
		var locs []*profile.Location
		for _, frame := range strings.Split(name, ";") {
			fn := funcs[frame]
			if fn == nil {
				fn = &profile.Function{ID: uint64(len(funcs) + 1), Name: frame, SystemName: frame, Filename: "lnd.go"}
				funcs[frame] = fn
				p.Function = append(p.Function, fn)
			}
			id++
			loc := &profile.Location{ID: id, Mapping: p.Mapping[0], Address: 0x400000 + id, Line: []profile.Line{{Function: fn, Line: int64(id)}}}
			p.Location = append(p.Location, loc)
			locs = append([]*profile.Location{loc}, locs...) // leaf first
		}
		p.Sample = append(p.Sample, &profile.Sample{Location: locs, Value: []int64{stacks[name], stacks[name] * p.Period}})
	}
	return p
}

func sortedKeys(m map[string]int64) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// fakeRun writes an artifacts folder as the sampler does: each window's
// pprof under <Actor>_traces/ and a line in traces.jsonl. Windows are
// indexed in the order given, which need not be time order.
func fakeRun(t *testing.T, windows []fakeWindow) string {
	dir := filepath.Join(t.TempDir(), "20261122T150000Z-AlicePaysBob")
	for i, w := range windows {
		sub := filepath.Join(dir, traces.Dir(w.actor))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		rel := filepath.Join(traces.Dir(w.actor), strings.Repeat("0", i+1)+".pb.gz")
		var buf bytes.Buffer
		if err := cpuProfile(w.stacks).Write(&buf); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, rel), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		start := time.Date(2026, 11, 22, 15, 0, w.second, 0, time.UTC)
		if err := traces.Append(dir, traces.Window{Actor: w.actor, Label: "measure/x", Start: start, End: start.Add(time.Second), Profile: rel}); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

type fakeWindow struct {
	actor  string
	second int
	stacks map[string]int64
}

var threeWindows = []fakeWindow{
	{"alice", 2, map[string]int64{"main;sendPayment;sign": 5, "main;gc": 1}},
	{"bob", 1, map[string]int64{"main;settleInvoice": 7}},
	{"alice", 1, map[string]int64{"main;sendPayment;sign": 3}},
}

func TestMergeSumsSamplesOfEveryWindow(t *testing.T) {
	dir := fakeRun(t, threeWindows)
	p, info, err := Merge(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if info.Windows != 3 || info.Samples != 16 || strings.Join(info.Actors, ",") != "alice,bob" {
		t.Fatalf("info = %+v, want 3 windows of alice,bob with 16 samples", info)
	}
	if info.RunID != "20261122T150000Z-AlicePaysBob" {
		t.Errorf("run id %q, want the folder name", info.RunID)
	}
	byLeaf := map[string]int64{}
	for _, s := range p.Sample {
		byLeaf[s.Location[0].Line[0].Function.Name] += s.Value[0]
	}
	if byLeaf["sign"] != 8 || byLeaf["settleInvoice"] != 7 || byLeaf["gc"] != 1 {
		t.Errorf("samples by leaf = %v, want sign 8, settleInvoice 7, gc 1", byLeaf)
	}
}

func TestActorFilterKeepsOnlyThoseActors(t *testing.T) {
	dir := fakeRun(t, threeWindows)
	_, info, err := Merge(dir, []string{"bob"})
	if err != nil {
		t.Fatal(err)
	}
	if info.Windows != 1 || info.Samples != 7 || strings.Join(info.Actors, ",") != "bob" {
		t.Fatalf("info = %+v, want bob's one window of 7 samples", info)
	}
	_, _, err = Merge(dir, []string{"carol"})
	if err == nil || !strings.Contains(err.Error(), "actors with windows: alice, bob") {
		t.Fatalf("unknown actor: err = %v, want one naming alice and bob", err)
	}
}

func TestNoWindowsNamesTheFix(t *testing.T) {
	dir := t.TempDir()
	_, _, err := MergeFromRun(t.TempDir(), dir, nil)
	if err == nil || !strings.Contains(err.Error(), "no profiling windows in "+dir) || !strings.Contains(err.Error(), "sampling: {mode: iteration}") {
		t.Fatalf("err = %v, want the no-windows error naming sampling and lnbench pgo record", err)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("error spans lines: %q", err)
	}
}

func TestMissingWindowFileIsAnError(t *testing.T) {
	dir := fakeRun(t, threeWindows)
	if err := os.RemoveAll(filepath.Join(dir, traces.Dir("bob"))); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Merge(dir, nil); err == nil || !strings.Contains(err.Error(), "window bob") {
		t.Fatalf("err = %v, want one naming bob's window", err)
	}
	if _, info, err := Merge(dir, []string{"alice"}); err != nil || info.Windows != 2 {
		t.Fatalf("alice only: %+v, %v; want her two windows", info, err)
	}
}

func TestSameWindowsGiveTheSameFile(t *testing.T) {
	cache := t.TempDir()
	first, info1, err := MergeFromRun(cache, fakeRun(t, threeWindows), nil)
	if err != nil {
		t.Fatal(err)
	}
	// The same windows indexed in another order, in another folder.
	reordered := []fakeWindow{threeWindows[2], threeWindows[1], threeWindows[0]}
	second, info2, err := MergeFromRun(cache, fakeRun(t, reordered), nil)
	if err != nil {
		t.Fatal(err)
	}
	if first != second || info1.SHA256 != info2.SHA256 {
		t.Fatalf("same windows stored as %s (%s) and %s (%s)", first, info1.SHA256, second, info2.SHA256)
	}
	if filepath.Dir(first) != Dir(cache) || !strings.HasPrefix(info1.SHA256, strings.TrimSuffix(filepath.Base(first), ".pgo")) {
		t.Errorf("profile at %s, want %s/<sha prefix>.pgo", first, Dir(cache))
	}
	bobOnly, _, err := MergeFromRun(cache, fakeRun(t, threeWindows), []string{"bob"})
	if err != nil {
		t.Fatal(err)
	}
	if bobOnly == first {
		t.Errorf("bob's windows alone stored under the same name as all windows: %s", bobOnly)
	}
	// The stored file is what go build -pgo reads, and what the key hashes.
	if err := (nodebuild.Flavour{PGO: first}).Validate(); err != nil {
		t.Errorf("stored profile rejected as a PGO profile: %v", err)
	}
	origin, err := os.ReadFile(nodebuild.PGOOriginFile(first))
	if err != nil || !strings.Contains(string(origin), "run 20261122T150000Z-AlicePaysBob") || !strings.Contains(string(origin), "3 windows of alice, bob, 16 samples") {
		t.Errorf("origin file = %q, %v; want the run, windows, actors and samples", origin, err)
	}
	left, _ := filepath.Glob(filepath.Join(Dir(cache), ".tmp-*"))
	if len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

func TestResolve(t *testing.T) {
	cache := t.TempDir()
	dir := fakeRun(t, threeWindows)
	merged, info, err := Resolve(cache, dir, nil)
	if err != nil || info.Windows != 3 || filepath.Dir(merged) != Dir(cache) {
		t.Fatalf("Resolve(dir) = %s, %+v, %v; want the merged profile in the cache", merged, info, err)
	}
	same, _, err := Resolve(cache, merged, nil)
	if err != nil || same != merged {
		t.Fatalf("Resolve(file) = %s, %v; want the file itself", same, err)
	}
	if _, _, err := Resolve(cache, merged, []string{"alice"}); err == nil {
		t.Error("actors with a profile file: want an error")
	}
	if _, _, err := Resolve(cache, filepath.Join(dir, "nope"), nil); err == nil || !strings.Contains(err.Error(), "no such file or folder") {
		t.Errorf("missing path: err = %v", err)
	}
}
