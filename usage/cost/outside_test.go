package cost

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/usage"
)

// proc is one process of a synthetic host, busy at a steady rate.
type proc struct {
	network, name, role string
	cores               float64
}

// host is a synthetic machine: its processes, other load (outside cores)
// and, per network, a sampler that starts at offsetMs, takes a sample
// every second for warm seconds of warm-up and then measured seconds,
// tagging them with the network's case.
type host struct {
	procs     []proc
	outside   float64
	offsetMs  map[string]int
	cases     map[string]string
	warm, run int
	source    string // the actors' source; "" cgroup v2
	noHost    bool   // a stream written before the host was sampled
}

// samples writes what each network's sampler would: its actors, the
// harness (every network samples it) and the host, whose busy CPU is every
// process once plus the outside load, all cumulative since t0.
func (h host) samples() []usage.Sample {
	src := h.source
	if src == "" {
		src = usage.SourceCgroupV2
	}
	total := h.outside
	for _, p := range h.procs {
		total += p.cores
	}
	var out []usage.Sample
	for net, off := range h.offsetMs {
		for k := 0; k <= h.warm+h.run; k++ {
			at := t0.Add(time.Duration(off+1000*k) * time.Millisecond)
			el := at.Sub(t0).Seconds()
			tag := usage.Sample{Time: at, Network: net, Case: h.cases[net], Phase: result.Measure}
			if k <= h.warm {
				tag.Phase = result.Warmup
			}
			for _, p := range h.procs {
				if p.network != net && p.role != usage.RoleHarness {
					continue
				}
				s := tag
				s.Actor, s.Role, s.Source, s.CPUUserSeconds = p.name, p.role, src, p.cores*el
				if p.role == usage.RoleHarness {
					s.Source = usage.SourceProc
				}
				out = append(out, s)
			}
			if !h.noHost {
				s := tag
				s.Actor, s.Role, s.Source, s.CPUUserSeconds, s.CPULimit = usage.RoleHost, usage.RoleHost, usage.SourceProcStat, total*el, 2
				out = append(out, s)
			}
		}
	}
	return out
}

func TestOutsideCPU(t *testing.T) {
	one := []proc{{"n1", "alice", usage.RoleNode, 0.6}, {"n1", "bob", usage.RoleNode, 0.5}, {"n1", "btcd", usage.RoleChain, 0.05}, {"", "harness", usage.RoleHarness, 0.02}}
	two := append(append([]proc(nil), one...), proc{"n2", "alice", usage.RoleNode, 0.3}, proc{"n2", "bob", usage.RoleNode, 0.2})
	single := map[string]int{"n1": 0}
	for _, tc := range []struct {
		name      string
		h         host
		hostCores int
		want      float64 // outside cores; NaN: no figure
		busy      bool
		note      string
	}{
		{"quiet machine", host{procs: one, outside: 0.05, offsetMs: single}, 2, 0.05, false, ""},
		{"burner beside the run", host{procs: one, outside: 1, offsetMs: single}, 2, 1, true, ""},
		{"just under a quarter core", host{procs: one, outside: 0.24, offsetMs: single}, 2, 0.24, false, ""},
		{"8 cores: 0.3 is under 5% of the host", host{procs: one, outside: 0.3, offsetMs: single}, 8, 0.3, false, ""},
		{"8 cores: 0.5 is over", host{procs: one, outside: 0.5, offsetMs: single}, 8, 0.5, true, ""},
		// Two networks measured at once, sampled 400 ms apart: the other
		// network's nodes are the run's, and the harness counts once.
		{"two networks at once", host{procs: two, outside: 0.1, offsetMs: map[string]int{"n1": 0, "n2": 400}}, 2, 0.1, false, ""},
		// docker-proxy (the published ports' userland proxy) is the run's,
		// not another process loading the machine.
		{"docker-proxy is the run's", host{procs: append(append([]proc(nil), one...), proc{"n1", "docker-proxy", usage.RoleProxy, 0.07}), outside: 0.05, offsetMs: single}, 2, 0.05, false, ""},
		{"host cores from the sample", host{procs: one, outside: 0.5, offsetMs: single}, 0, 0.5, true, ""},
		{"stream without host samples", host{procs: one, outside: 1, offsetMs: single, noHost: true}, 2, math.NaN(), false, ""},
		{"engine stats API", host{procs: one, outside: 1, offsetMs: single, source: usage.SourceDockerStats}, 2, math.NaN(), false, "engine's stats API"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.h.warm, tc.h.run = 3, 10
			tc.h.cases = map[string]string{"n1": caseID, "n2": "other"}
			cs := Analyze(Input{Cases: []CaseInput{{ID: caseID}}, Samples: tc.h.samples(), HostCores: tc.hostCores})
			c := cs[0]
			for _, a := range c.Actors {
				if a.Role == usage.RoleHost {
					t.Fatalf("the host is listed as an actor: %+v", a)
				}
			}
			if tc.note != "" && !strings.Contains(strings.Join(c.Notes, "\n"), tc.note) {
				t.Errorf("notes %q, want one with %q", c.Notes, tc.note)
			}
			o := c.Outside
			if math.IsNaN(tc.want) {
				if o != nil {
					t.Fatalf("outside %+v, want none", *o)
				}
				return
			}
			if o == nil {
				t.Fatal("no outside figure")
			}
			if math.Abs(o.Cores-tc.want) > 1e-6 || o.Busy != tc.busy || math.Abs(o.Seconds-10) > 1e-6 {
				t.Errorf("outside %.4f cores busy=%v over %.1f s, want %.4f busy=%v over 10 s", o.Cores, o.Busy, o.Seconds, tc.want, tc.busy)
			}
			if cores := max(tc.hostCores, 2); math.Abs(o.HostShare-tc.want/float64(cores)) > 1e-6 {
				t.Errorf("host share %.4f, want %.4f", o.HostShare, tc.want/float64(cores))
			}
			if w := o.Warning(caseID); (w != "") != tc.busy || tc.busy && !strings.Contains(w, "busy machine: other processes used") {
				t.Errorf("warning %q", w)
			}
		})
	}
}

// A restarted actor's counter starts again from zero: the value after the
// reset is its CPU since, not a negative delta that would inflate outside.
func TestOutsideCPUAcrossAReset(t *testing.T) {
	h := host{procs: []proc{{"n1", "bob", usage.RoleNode, 0.5}}, outside: 0.1, offsetMs: map[string]int{"n1": 0}, warm: 1, run: 6,
		cases: map[string]string{"n1": caseID}}
	ss := h.samples()
	for i, s := range ss {
		if s.Actor == "bob" && s.Time.After(t0.Add(3500*time.Millisecond)) {
			ss[i].CPUUserSeconds -= 0.5 * 3 // restarted at 3 s
		}
	}
	o := Analyze(Input{Cases: []CaseInput{{ID: caseID}}, Samples: ss, HostCores: 2})[0].Outside
	// The restart's interval credits bob 0.5·(4−3) = 0.5 s, not −1.0.
	if o == nil || math.Abs(o.Cores-0.1) > 1e-6 {
		t.Fatalf("outside %+v, want 0.1 cores", o)
	}
}
