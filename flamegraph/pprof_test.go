package flamegraph

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"
)

const busyName = "github.com/lnbench/lnbench/flamegraph.busyLoopForProfile"

// busyLoopForProfile burns CPU for d so that a CPU profile samples it.
//
//go:noinline
func busyLoopForProfile(d time.Duration) uint64 {
	x := uint64(1)
	for start := time.Now(); time.Since(start) < d; {
		for i := 0; i < 100000; i++ {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	return x
}

var sink uint64

// cpuProfile profiles busyLoopForProfile, longer until it is sampled.
func cpuProfile(t *testing.T) []byte {
	t.Helper()
	for _, d := range []time.Duration{400 * time.Millisecond, 1500 * time.Millisecond, 4 * time.Second} {
		var buf bytes.Buffer
		if err := pprof.StartCPUProfile(&buf); err != nil {
			t.Skipf("cannot start a CPU profile (go test -cpuprofile?): %v", err)
		}
		sink += busyLoopForProfile(d)
		pprof.StopCPUProfile()
		p, err := profile.Parse(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		for _, fn := range p.Function {
			if fn.Name == busyName {
				return buf.Bytes()
			}
		}
	}
	t.Fatalf("%s never sampled", busyName)
	return nil
}

func TestRealGoCPUProfile(t *testing.T) {
	data := cpuProfile(t)
	p, err := profile.Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	f, err := FromProfile(p)
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, s := range f {
		for i, fr := range s.Frames {
			if fr != busyName {
				continue
			}
			found = true
			// Root first: the test function calls the busy loop.
			if i == 0 || !strings.HasSuffix(s.Frames[i-1], ".TestRealGoCPUProfile") && !strings.HasSuffix(s.Frames[i-1], ".cpuProfile") {
				t.Errorf("caller of the busy loop is not the test: %q", s.Frames)
			}
		}
	}
	if !found {
		t.Fatalf("%s not in the profile's stacks:\n%v", busyName, f)
	}
	if f.Total() != sampleCount(p) {
		t.Errorf("total %d, want the profile's %d samples", f.Total(), sampleCount(p))
	}
	var svg bytes.Buffer
	if err := Render(&svg, f, Options{Title: "CPU"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(svg.String(), "<title>"+busyName+" (") {
		t.Errorf("SVG lacks a frame for %s", busyName)
	}
	frames(t, svg.Bytes())

	// ReadFile tells a gzipped pprof profile (what runtime/pprof and
	// net/http/pprof write) from folded stacks, gzipped or not.
	dir := t.TempDir()
	var folded bytes.Buffer
	f.Write(&folded)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(folded.Bytes())
	zw.Close()
	var raw bytes.Buffer
	p.WriteUncompressed(&raw)
	for name, content := range map[string][]byte{
		"cpu.pprof": data, "cpu.raw.pprof": raw.Bytes(), "cpu.folded": folded.Bytes(), "cpu.folded.gz": gz.Bytes(),
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := ReadFile(path)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		var b bytes.Buffer
		got.Merge().Write(&b)
		if b.String() != folded.String() {
			t.Errorf("%s read back differently", name)
		}
	}
	if _, err := Read(strings.NewReader("\x08\x01garbage")); err == nil {
		t.Error("garbage read as a profile")
	}
}

func sampleCount(p *profile.Profile) int64 {
	var n int64
	for _, s := range p.Sample {
		n += s.Value[0]
	}
	return n
}

// A synthetic profile: inlined frames expanded caller first, and the
// sample type chosen.
func TestFromProfileInlinedAndSampleType(t *testing.T) {
	fn := func(id uint64, name string) *profile.Function { return &profile.Function{ID: id, Name: name} }
	mainF, sendF, inl, leafF := fn(1, "main.main"), fn(2, "github.com/lightningnetwork/lnd/htlcswitch.(*Switch).SendHTLC"),
		fn(3, "github.com/lightningnetwork/lnd/htlcswitch.(*Switch).inlinedHelper"), fn(4, "runtime.memmove")
	locMain := &profile.Location{ID: 1, Line: []profile.Line{{Function: mainF}}}
	// One location holding SendHTLC with inlinedHelper inlined into it:
	// Line[0] is the innermost.
	locSend := &profile.Location{ID: 2, Line: []profile.Line{{Function: inl}, {Function: sendF}}}
	locLeaf := &profile.Location{ID: 3, Line: []profile.Line{{Function: leafF}}}
	locUnknown := &profile.Location{ID: 4, Address: 0xdead}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		Sample: []*profile.Sample{
			{Location: []*profile.Location{locLeaf, locSend, locMain}, Value: []int64{3, 30000000}},
			{Location: []*profile.Location{locUnknown, locMain}, Value: []int64{1, 10000000}},
			{Location: []*profile.Location{locLeaf, locSend, locMain}, Value: []int64{2, 20000000}},
		},
		Function: []*profile.Function{mainF, sendF, inl, leafF},
		Location: []*profile.Location{locMain, locSend, locLeaf, locUnknown},
	}
	f, err := FromProfile(p)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	f.Write(&b)
	want := "main.main;0xdead 1\n" +
		"main.main;github.com/lightningnetwork/lnd/htlcswitch.(*Switch).SendHTLC;github.com/lightningnetwork/lnd/htlcswitch.(*Switch).inlinedHelper;runtime.memmove 5\n"
	if b.String() != want {
		t.Errorf("got:\n%swant:\n%s", b.String(), want)
	}
	cpu, err := FromProfileSampleType(p, "cpu")
	if err != nil || cpu.Total() != 60000000 {
		t.Errorf("cpu sample type: total %d, %v", cpu.Total(), err)
	}
	if _, err := FromProfileSampleType(p, "alloc_space"); err == nil {
		t.Error("missing sample type accepted")
	}
	// Without a "samples" type: the default sample type, else the last.
	p.SampleType = []*profile.ValueType{{Type: "alloc_space", Unit: "bytes"}, {Type: "inuse_space", Unit: "bytes"}}
	p.Sample = p.Sample[:1]
	p.Sample[0].Value = []int64{100, 7}
	if f, _ := FromProfile(p); f.Total() != 7 {
		t.Errorf("last sample type not chosen: %d", f.Total())
	}
	p.DefaultSampleType = "alloc_space"
	if f, _ := FromProfile(p); f.Total() != 100 {
		t.Errorf("default sample type not chosen: %d", f.Total())
	}
}
