package network

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/internal/fakenet"
	"github.com/lnbench/lnbench/topology"
)

func startFake(ctx context.Context, be backend.Backend) (Chain, backend.ChainEndpoint, error) {
	return fakenet.StartChain(ctx, be)
}

// stepClock advances one second per reading.
func stepClock() func() time.Time {
	var mu sync.Mutex
	t := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t = t.Add(time.Second)
		return t
	}
}

func fakeOptions(f *fakenet.Fleet) Options {
	return Options{Drivers: f.Drivers("lnd"), StartChain: startFake, now: stepClock()}
}

// diamond: alice funds two channels, carol one; payments alice → bob.
func diamond() topology.Topology {
	return topology.Topology{Name: "diamond",
		Nodes: []topology.Node{{Name: "alice"}, {Name: "carol"}, {Name: "dave"}, {Name: "bob"}},
		Channels: []topology.Channel{
			{From: "alice", To: "carol", CapacitySat: 5_000_000},
			{From: "alice", To: "dave", CapacitySat: 3_000_000},
			{From: "carol", To: "bob"},
			{From: "dave", To: "bob", CapacitySat: 2_000_000, PushSat: 1000},
		},
		Payers: []string{"alice"}, Payee: "bob"}.WithDefaults("lnd", "v0.21.0-beta")
}

func up(t *testing.T, f *fakenet.Fleet, topo topology.Topology, opts Options) (*Network, *fakenet.Backend) {
	t.Helper()
	be := f.NewBackend("run1")
	n, err := Up(context.Background(), be, topo, opts)
	if err != nil {
		t.Fatalf("Up: %v\nevents: %q", err, be.Events())
	}
	return n, be
}

func index(events []string, prefix string) int {
	return slices.IndexFunc(events, func(e string) bool { return strings.HasPrefix(e, prefix) })
}

func TestPhasesRunInOrderWithTimings(t *testing.T) {
	f := &fakenet.Fleet{}
	n, _ := up(t, f, diamond(), fakeOptions(f))
	var names []string
	for i, p := range n.Phases {
		names = append(names, p.Name)
		// The clock steps once at each phase's start and once at its end.
		if p.Seconds != 1 {
			t.Errorf("phase %s took %vs on a clock stepping 1 s per reading, want 1", p.Name, p.Seconds)
		}
		if want := time.Date(2026, 1, 1, 0, 0, 1+2*i, 0, time.UTC); !p.Start.Equal(want) {
			t.Errorf("phase %s started %v, want %v", p.Name, p.Start, want)
		}
	}
	if want := []string{"chain", "nodes", "fund", "channels", "routes"}; !slices.Equal(names, want) {
		t.Fatalf("phases %v, want %v", names, want)
	}
	for _, name := range []string{"alice", "bob", "carol", "dave"} {
		if n.PubKeys[name] != fakenet.PubKey(name) {
			t.Errorf("pubkey of %s = %q", name, n.PubKeys[name])
		}
	}
}

func TestFundsEachFunderItsCapacityPlusFeeMargin(t *testing.T) {
	f := &fakenet.Fleet{}
	_, be := up(t, f, diamond(), fakeOptions(f))
	var funds []string
	for _, e := range be.Events() {
		if strings.HasPrefix(e, "fund ") {
			funds = append(funds, e)
		}
	}
	want := []string{"fund addr-alice 9000000", "fund addr-carol 11000000", "fund addr-dave 3000000"}
	if !slices.Equal(funds, want) {
		t.Fatalf("funding %q, want %q", funds, want)
	}
	// Coinbases mature before nodes start: one per funder plus one.
	ev := be.Events()
	if i, j := index(ev, "mature 4"), index(ev, "start node"); i < 0 || j < i {
		t.Fatalf("mature 4 at %d, first node start at %d: %q", i, j, ev)
	}
}

func TestOneChannelBatchPerFunderAfterConnecting(t *testing.T) {
	f := &fakenet.Fleet{}
	_, be := up(t, f, diamond(), fakeOptions(f))
	ev := be.Events()
	opens := map[string][]string{}
	for _, e := range ev {
		if rest, ok := strings.CutPrefix(e, "open "); ok {
			funder, chans, _ := strings.Cut(rest, " ")
			opens[funder] = append(opens[funder], chans)
		}
	}
	want := map[string][]string{"alice": {"carol:5000000,dave:3000000"}, "carol": {"bob:10000000"}, "dave": {"bob:2000000"}}
	if len(opens) != len(want) {
		t.Fatalf("batches %v, want %v", opens, want)
	}
	for funder, w := range want {
		if !slices.Equal(opens[funder], w) {
			t.Errorf("%s opened %v, want one batch %v", funder, opens[funder], w)
		}
	}
	if c, o := index(ev, "connect alice dave"), index(ev, "open alice"); c < 0 || o < c {
		t.Errorf("alice opened (at %d) before connecting to dave (at %d)", o, c)
	}
	// Channels are awaited only after the 6 confirmation blocks.
	if m, a := index(ev, "mine 6"), index(ev, "active "); m < 0 || a < m {
		t.Errorf("active wait at %d, mine 6 at %d", a, m)
	}
}

func TestPeersConnectOnlyAfterEveryNodeIsReady(t *testing.T) {
	f := &fakenet.Fleet{}
	entered := make(chan string, 4)
	gate := make(chan struct{})
	f.Hooks.WaitReady = func(ctx context.Context, name string) error {
		entered <- name
		<-gate
		return nil
	}
	be := f.NewBackend("run1")
	done := make(chan error, 1)
	go func() {
		_, err := Up(context.Background(), be, diamond(), fakeOptions(f))
		done <- err
	}()
	for range 4 {
		select {
		case <-entered:
		case err := <-done:
			t.Fatalf("Up ended (%v) without asking every node whether it is ready: %q", err, be.Events())
		}
	}
	if i := index(be.Events(), "connect"); i >= 0 {
		t.Fatalf("a peer connected while nodes were not ready: %q", be.Events())
	}
	close(gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	ev := be.Events()
	first := index(ev, "connect")
	for _, name := range []string{"alice", "bob", "carol", "dave"} {
		if r := index(ev, "ready "+name); r < 0 || r > first {
			t.Errorf("%s ready at %d, first connect at %d", name, r, first)
		}
	}
}

func TestNodeNeverReadyFailsTheNodesPhase(t *testing.T) {
	f := &fakenet.Fleet{}
	f.Hooks.WaitReady = func(ctx context.Context, name string) error {
		if name == "bob" {
			return context.DeadlineExceeded
		}
		return nil
	}
	_, err := Up(context.Background(), f.NewBackend("run1"), diamond(), fakeOptions(f))
	if err == nil || !strings.Contains(err.Error(), "setup nodes: node bob not ready") {
		t.Fatalf("error %v, want it to name the phase and bob", err)
	}
}

func TestPhaseTimeoutNamesThePhase(t *testing.T) {
	f := &fakenet.Fleet{}
	stalled := make(chan struct{})
	var once sync.Once
	f.Hooks.WaitActiveChannels = func(ctx context.Context, name string) error {
		once.Do(func() { close(stalled) })
		<-ctx.Done()
		return ctx.Err()
	}
	fire := make(chan time.Time)
	opts := fakeOptions(f)
	opts.PhaseTimeout = 90 * time.Second
	opts.after = func(time.Duration) <-chan time.Time { return fire }
	done := make(chan error, 1)
	go func() {
		_, err := Up(context.Background(), f.NewBackend("run1"), diamond(), opts)
		done <- err
	}()
	<-stalled
	close(fire) // only the channels phase still waits on its timer
	err := <-done
	if err == nil || !strings.HasPrefix(err.Error(), `setup channels: setup phase "channels" took longer than 1m30s`) {
		t.Fatalf("error %v, want it to name the channels phase and its bound", err)
	}
}

func TestUnknownImplementationFailsBeforeAnythingStarts(t *testing.T) {
	f := &fakenet.Fleet{}
	topo := diamond()
	topo.Nodes[2].Implementation = "cln"
	be := f.NewBackend("run1")
	_, err := Up(context.Background(), be, topo, fakeOptions(f))
	if err == nil || !strings.Contains(err.Error(), `node dave: implementation "cln" has no node driver (known: lnd)`) {
		t.Fatalf("error %v", err)
	}
	if ev := be.Events(); len(ev) != 0 {
		t.Fatalf("started %q before failing", ev)
	}
}

func TestPollEvery(t *testing.T) {
	for _, tc := range []struct {
		nodes int
		want  time.Duration
	}{{2, 100 * time.Millisecond}, {10, 100 * time.Millisecond}, {25, 250 * time.Millisecond}, {100, time.Second}, {1000, time.Second}} {
		if got := pollEvery(tc.nodes); got != tc.want {
			t.Errorf("pollEvery(%d) = %v, want %v", tc.nodes, got, tc.want)
		}
	}
}

// TestChannelsBothWaysConnectOnce: alice→bob and bob→alice connect once,
// from the first channel's funder, before either opens; two dials at once
// race LND's tie-break of duplicate connections.
func TestChannelsBothWaysConnectOnce(t *testing.T) {
	f := &fakenet.Fleet{}
	topo := topology.Topology{Name: "both-ways", Nodes: []topology.Node{{Name: "alice"}, {Name: "bob"}},
		Channels: []topology.Channel{{From: "alice", To: "bob"}, {From: "bob", To: "alice", PushSat: 1000}},
		Payers:   []string{"alice"}, Payee: "bob"}.WithDefaults("lnd", "v0.21.0-beta")
	_, be := up(t, f, topo, fakeOptions(f))
	ev := be.Events()
	var connects []string
	for _, e := range ev {
		if strings.HasPrefix(e, "connect ") {
			connects = append(connects, e)
		}
	}
	if !slices.Equal(connects, []string{"connect alice bob"}) {
		t.Errorf("connects %q, want alice's alone", connects)
	}
	if c, o := index(ev, "connect alice bob"), index(ev, "open "); o < c {
		t.Errorf("a channel opened (at %d) before the connection (at %d)", o, c)
	}
}

func TestRestoreReplaysTheChainsBlocksBeforeItMines(t *testing.T) {
	f := &fakenet.Fleet{}
	be := f.NewBackend("run1")
	blocks := filepath.Join(t.TempDir(), "replay.blocks")
	if err := os.WriteFile(blocks, []byte("430\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	opts := fakeOptions(f)
	opts.ChainBlocks = blocks
	topo := topology.Topology{Name: "pair", Nodes: []topology.Node{{Name: "alice"}, {Name: "bob"}},
		Payers: []string{"alice"}, Payee: "bob"}.WithDefaults("lnd", "v0.21.0-beta")
	n, err := Restore(context.Background(), be, topo, opts)
	if err != nil {
		t.Fatalf("Restore: %v\nevents: %q", err, be.Events())
	}
	if h, _ := n.Chain.Height(context.Background()); h != 431 {
		t.Errorf("height after the restore %d, want the replayed 430 and one block mined", h)
	}
	opts.ChainBlocks = filepath.Join(t.TempDir(), "missing")
	if _, err := Restore(context.Background(), f.NewBackend("run2"), topo, opts); err == nil || !strings.Contains(err.Error(), "setup chain") {
		t.Errorf("a missing blocks file: %v, want the chain phase's error", err)
	}
}

func TestDoneSummaryNamesTheStraggler(t *testing.T) {
	at := map[string]time.Duration{
		"alice": 1200 * time.Millisecond, "bob": 900 * time.Millisecond,
		"carol": 9800 * time.Millisecond, "dave": 1500 * time.Millisecond,
	}
	want := "half of 4 nodes by 1.2 s, all by 9.8 s (last: carol)"
	if got := doneSummary(at, "nodes"); got != want {
		t.Errorf("activeSummary = %q, want %q", got, want)
	}
	if got := doneSummary(nil, "nodes"); got != "no nodes" {
		t.Errorf("doneSummary(nil) = %q", got)
	}
}

// A dial that fails does not leave the other pairs undialled, and the
// error names the pair.
func TestOneFailedDialLeavesNoPairUndialled(t *testing.T) {
	defer func(was time.Duration) { dialPause = was }(dialPause)
	dialPause = time.Millisecond
	f := &fakenet.Fleet{}
	f.Hooks.Connect = func(_ context.Context, from, to string) error {
		if from == "alice" && to == "carol" {
			return errors.New("read tcp: i/o timeout")
		}
		return nil
	}
	be := f.NewBackend("run1")
	_, err := Up(context.Background(), be, diamond(), fakeOptions(f))
	if err == nil || !strings.Contains(err.Error(), "alice→carol: read tcp: i/o timeout") {
		t.Fatalf("Up: %v, want the alice→carol dial named", err)
	}
	ev := be.Events()
	for _, want := range []string{"connect alice dave", "connect carol bob", "connect dave bob"} {
		if index(ev, want) < 0 {
			t.Errorf("no %q after alice→carol failed: %q", want, ev)
		}
	}
	if tries := count(ev, "connect alice carol failed"); tries != dialTries {
		t.Errorf("alice→carol dialled %d times, want %d", tries, dialTries)
	}
}

// A handshake that timed out once (a loaded machine) is dialled again.
func TestATimedOutDialIsDialledAgain(t *testing.T) {
	defer func(was time.Duration) { dialPause = was }(dialPause)
	dialPause = time.Millisecond
	f := &fakenet.Fleet{}
	var mu sync.Mutex
	failed := false
	f.Hooks.Connect = func(_ context.Context, from, to string) error {
		mu.Lock()
		defer mu.Unlock()
		if from == "alice" && to == "carol" && !failed {
			failed = true
			return errors.New("read tcp: i/o timeout")
		}
		return nil
	}
	_, be := up(t, f, diamond(), fakeOptions(f))
	if index(be.Events(), "connect alice carol") < 0 {
		t.Errorf("alice never connected to carol: %q", be.Events())
	}
}

func count(events []string, e string) int {
	n := 0
	for _, x := range events {
		if x == e {
			n++
		}
	}
	return n
}
