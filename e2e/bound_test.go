//go:build e2e

package e2e

// The bound naming on real LND: a concurrency sweep on one alice–bob
// channel, its commitment-update figure cross-checked against lncli.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lnbench/lnbench/record/chanstate"
)

// lncliReading is alice's channel's num_updates read by lncli, a reading
// lnbench did not make, with the instants lncli ran between.
type lncliReading struct {
	from, to time.Time
	updates  uint64
}

// TestBoundNamesTheChannel sweeps AlicePaysBob over Concurrency=20,80 on
// the local backend: a case that saturated no sampled resource must name
// the alice–bob channel's commitment pipeline when its throughput stayed
// flat, and say what it saw otherwise. Meanwhile lncli reads alice's
// num_updates; every such reading must lie between lnbench's own readings
// just before and just after it.
func TestBoundNamesTheChannel(t *testing.T) {
	bins := binaries(t)
	lncli := filepath.Join(bins.Dir, "lncli")
	dir, byHand := runReadingAlice(t, func() (lncliReading, bool) { return readAliceByHand(lncli) },
		"run", "--param", "Concurrency=20,80", "--param", "TotalPayments=200", "--quick")
	if got := checkBounds(t, dir); len(got) != 2 {
		t.Fatalf("%d resource cases", len(got))
	}
	checkReadingsBracket(t, dir, byHand, "lncli")
}

// runReadingAlice runs lnbench with args while readByHand reads alice's
// commitment number about every 0.7 s, and returns the run's folder and
// those readings.
func runReadingAlice(t *testing.T, readByHand func() (lncliReading, bool), args ...string) (string, []lncliReading) {
	t.Helper()
	var mu sync.Mutex
	var byHand []lncliReading
	p := newPoller()
	go func() {
		defer close(p.done)
		for p.tick(700 * time.Millisecond) {
			if r, ok := readByHand(); ok {
				mu.Lock()
				byHand = append(byHand, r)
				mu.Unlock()
			}
		}
	}()
	dir := runCLI(t, args...)
	p.end()
	return dir, byHand
}

// checkReadingsBracket: every reading by hand (by tool) of alice's
// commitment number lies between lnbench's own readings just before and
// just after it, and at least three fell between two of lnbench's.
func checkReadingsBracket(t *testing.T, dir string, byHand []lncliReading, tool string) {
	t.Helper()
	readings, err := chanstate.Load(filepath.Join(dir, chanstate.FileName))
	if err != nil || len(readings) == 0 {
		t.Fatalf("channels.jsonl: %d readings, %v", len(readings), err)
	}
	checked, exact := 0, 0
	for _, h := range byHand {
		before, after, ok := bracket(readings, h)
		if !ok {
			continue
		}
		checked++
		if h.updates < before || h.updates > after {
			t.Errorf("%s read %d commitment updates at %v; lnbench read %d before and %d after", tool, h.updates, h.from.Format("15:04:05.000"), before, after)
		}
		if before == after {
			exact++
		}
		if checked <= 3 || checked == len(byHand)-2 {
			t.Logf("%s: %d commitment updates at %s: lnbench read %d before, %d after", tool, h.updates, h.from.Format("15:04:05.000"), before, after)
		}
	}
	t.Logf("%s readings %d, bracketed by lnbench's %d, equal to both ends %d", tool, len(byHand), checked, exact)
	if checked < 3 {
		t.Errorf("only %d %s readings fell between lnbench's readings of alice", checked, tool)
	}
}

// TestBoundTwoParallelChannels runs the same sweep over two alice–bob
// channels, the most a topology allows (one per direction: bob's pushes
// alice half of it). Whether LND spreads the payments over both or keeps
// to one, the bound must follow the channels that moved: the one channel's
// pipeline, or a stage beyond one channel. Both ends open at once, which
// LND refuses under its default of one pending channel per peer.
func TestBoundTwoParallelChannels(t *testing.T) {
	binaries(t)
	tmp := t.TempDir()
	topo := filepath.Join(tmp, "parallel.yml")
	scen := filepath.Join(tmp, "scenario.yml")
	os.WriteFile(topo, []byte(`nodes:
  - {name: alice}
  - {name: bob}
channels:
  - {from: alice, to: bob}
  - {from: bob, to: alice, push_sat: 5000000}
payers: [alice]
payee: bob
`), 0o644)
	os.WriteFile(scen, []byte("name: ParallelAliceBob\ntopology: parallel.yml\nnode:\n  flags: [--maxpendingchannels=2]\nparams:\n  Concurrency: [20, 80]\n  TotalPayments: [200]\n"), 0o644)
	dir := runCLI(t, "run", scen, "--quick")
	if got := checkBounds(t, dir); len(got) != 2 {
		t.Fatalf("%d resource cases", len(got))
	}
}

// checkBounds reads the run's verdicts and checks each against its own
// evidence: a saturated resource names no other bound; otherwise the
// channels that moved are alice and bob's, a flat sweep over one of them
// names its pipeline and over several a stage beyond one channel.
func checkBounds(t *testing.T, dir string) []boundCase {
	t.Helper()
	cases := readBounds(t, dir)
	var lines []string
	for _, c := range cases {
		lines = append(lines, c.ID+": "+c.Verdict.Text)
		if c.Verdict.Bound != "none" {
			if c.Verdict.Limit != nil {
				t.Errorf("%s: a saturated resource and a bound named: %+v", c.ID, c.Verdict)
			}
			continue
		}
		l, u := c.Verdict.Limit, c.Channels
		if l == nil || u == nil || len(u.Channels) == 0 {
			t.Errorf("%s: nothing saturated but no bound or channel use: %+v", c.ID, c)
			continue
		}
		// A direct payment moves alice's commitment twice (add, settle) at
		// most; the link's batching folds many payments into one update
		// (0.07 per payment seen at c=80).
		if u.UpdatesPerPayment <= 0 || u.UpdatesPerPayment > 2.05 {
			t.Errorf("%s: %.2f commitment updates per payment", c.ID, u.UpdatesPerPayment)
		}
		for _, ch := range u.Channels {
			if ch.Ends != "alice–bob" && ch.Ends != "bob–alice" {
				t.Errorf("%s: channel %s moved", c.ID, ch.Ends)
			}
		}
		s := l.Scaling
		switch flat := s != nil && s.ThroughputGain < 0.15 && s.P50Factor >= 0.5*float64(s.To)/float64(s.From); {
		case flat && len(u.Channels) == 1:
			if l.Kind != "channel-pipeline" || l.Channel != u.Channels[0].Ends || !strings.Contains(c.Verdict.Text, "bound by the "+l.Channel+" channel's commitment pipeline") {
				t.Errorf("%s: flat sweep on one channel but bound %+v", c.ID, l)
			}
		case flat:
			if l.Kind != "serialized-stage" {
				t.Errorf("%s: flat sweep over %d channels but bound %+v", c.ID, len(u.Channels), l)
			}
		case l.Kind == "channel-pipeline":
			t.Errorf("%s: channel named without a flat sweep: %+v", c.ID, l)
		}
	}
	for _, c := range readSummary(t, dir).Cases {
		lines = append(lines, fmt.Sprintf("%s: %.1f payments/s, p50 %.0f ms, mean %.0f ms", c.ID, c.PaymentsPerSec, c.Latency.P50, c.Latency.Mean))
	}
	t.Logf("verdicts:\n%s", strings.Join(lines, "\n"))
	return cases
}

// bracket is alice's channel's num_updates in lnbench's last reading that
// ended before lncli started and its first that started after lncli ended
// (a reading's time is when its RPC returned: allow 0.5 s for the call).
func bracket(rs []chanstate.Reading, h lncliReading) (before, after uint64, ok bool) {
	var b, a *chanstate.Reading
	for i, r := range rs {
		if r.Node != "alice" || len(r.Channels) != 1 {
			continue
		}
		if r.Time.Before(h.from) && (b == nil || r.Time.After(b.Time)) {
			b = &rs[i]
		}
		if r.Time.Add(-500*time.Millisecond).After(h.to) && (a == nil || r.Time.Before(a.Time)) {
			a = &rs[i]
		}
	}
	if b == nil || a == nil {
		return 0, 0, false
	}
	return b.Channels[0].Updates, a.Channels[0].Updates, true
}

// readAliceByHand finds alice's lnd among this process's children and
// reads its one channel's num_updates with lncli.
func readAliceByHand(lncli string) (lncliReading, bool) {
	var args map[string]string
	for _, p := range processesMentioning("--alias=alice") {
		f := strings.Fields(p)
		if len(f) < 2 || filepath.Base(f[1]) != "lnd" {
			continue
		}
		args = map[string]string{}
		for _, a := range f[2:] {
			if k, v, ok := strings.Cut(strings.TrimPrefix(a, "--"), "="); ok {
				args[k] = v
			}
		}
		if parentOf(strings.TrimSuffix(f[0], ":")) != os.Getpid() {
			args = nil // another test's alice
			continue
		}
		for _, a := range f[2:] {
			if strings.HasPrefix(a, "--bitcoin.") && !strings.Contains(a, "=") {
				args["network"] = strings.TrimPrefix(a, "--bitcoin.")
			}
		}
		break
	}
	if args == nil {
		return lncliReading{}, false
	}
	h := lncliReading{from: time.Now()}
	out, err := exec.Command(lncli, "--lnddir="+args["lnddir"], "--rpcserver="+args["rpclisten"], "--network="+args["network"], "listchannels").Output()
	h.to = time.Now()
	var lc struct {
		Channels []struct {
			NumUpdates string `json:"num_updates"`
		} `json:"channels"`
	}
	if err != nil || json.NewDecoder(bytes.NewReader(out)).Decode(&lc) != nil || len(lc.Channels) != 1 {
		return lncliReading{}, false
	}
	n, err := strconv.ParseUint(lc.Channels[0].NumUpdates, 10, 64)
	h.updates = n
	return h, err == nil
}

// parentOf is a process's parent pid (0: unknown).
func parentOf(pid string) int {
	stat, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}

// boundCase is the part of summary.json's resources the bound test reads.
type boundCase struct {
	ID       string `json:"id"`
	Channels *struct {
		UpdatesPerPayment float64 `json:"commitment_updates_per_payment"`
		Payments          int     `json:"payments"`
		Channels          []struct {
			Ends string `json:"ends"`
		} `json:"channels"`
	} `json:"channel_use"`
	Verdict struct {
		Bound string `json:"bound"`
		Text  string `json:"text"`
		Limit *struct {
			Kind    string `json:"kind"`
			Channel string `json:"channel"`
			Scaling *struct {
				From           int     `json:"from_concurrency"`
				To             int     `json:"to_concurrency"`
				ThroughputGain float64 `json:"throughput_gain"`
				P50Factor      float64 `json:"p50_factor"`
			} `json:"scaling"`
		} `json:"limit"`
	} `json:"verdict"`
}

func readBounds(t *testing.T, dir string) []boundCase {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Resources []boundCase `json:"resources"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	return s.Resources
}
