//go:build e2e

package compose

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/chain/btcd"
	"github.com/lnbench/lnbench/node"
	"github.com/lnbench/lnbench/node/drivers"
	"github.com/lnbench/lnbench/topology"
)

// TestComposeFaults drives the fault injector on btcd + alice + bob: a rate
// limit on the alice→bob link only, a 50 ms delay on alice (gRPC latency
// shift of a call that stays in alice; jitter spreads it), 100% loss on the alice→bob link only, pause/resume, restart (a new
// endpoint that answers getinfo) and kill; nodes keep no capability and no
// helper container is left. Delay and loss use the kernel's sch_netem, or
// without it iptables with a user-space delayer on NFQUEUE (the static
// lnbench built here); only when neither works do those parts skip with
// the error line Impair gives.
func TestComposeFaults(t *testing.T) {
	needDocker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	img := nodeImage(t, ctx)
	tool := staticTool(t)
	be := newTestBackend(t, ctx, img, topology.AlicePaysBob(), func(o *Options) { o.Tool = tool })
	f, err := btcd.NewFaucet(btcd.Simnet)
	if err != nil {
		t.Fatal(err)
	}
	cep, err := be.StartChain(ctx, backend.ChainSpec{RPCUser: "u", RPCPass: "p", MiningAddr: f.Address(), Nodes: 2})
	if err != nil {
		t.Fatal(err)
	}
	// A recent block, so lnd counts itself synced and its server starts.
	chain, err := btcd.Dial(cep.RPCHost, cep.CertPath, "u", "p")
	if err != nil {
		t.Fatal(err)
	}
	_, err = chain.Mine(ctx, 1)
	chain.Close()
	if err != nil {
		t.Fatal(err)
	}
	eps := map[string]backend.NodeEndpoint{}
	for _, n := range []string{"alice", "bob"} {
		ep, err := be.StartNode(ctx, backend.NodeSpec{Name: n, Implementation: "lnd", Version: "v0.21.0-beta"})
		if err != nil {
			t.Fatal(err)
		}
		eps[n] = ep
	}
	alice := dialReady(t, ctx, eps["alice"])
	ids := map[string]string{}
	for _, s := range []string{"alice", "bob", "btcd"} {
		ids[s], _ = be.containerID(ctx, s)
	}
	// A byte counter on bob and btcd: alice sends n bytes, waits for the count.
	for _, s := range []string{"bob", "btcd"} {
		if _, err := docker(ctx, "exec", "-d", ids[s], "socat", "TCP-LISTEN:9999,fork,reuseaddr", "EXEC:wc -c"); err != nil {
			t.Fatal(err)
		}
	}
	send := func(to string, n int) (time.Duration, error) {
		start := time.Now()
		out, err := docker(ctx, "exec", ids["alice"], "bash", "-c",
			fmt.Sprintf("head -c %d /dev/zero | socat -t 30 -T 8 - TCP:%s:9999,connect-timeout=8", n, to))
		if err == nil && strings.TrimSpace(out) != strconv.Itoa(n) {
			err = fmt.Errorf("%s counted %q bytes, want %d", to, out, n)
		}
		return time.Since(start), err
	}
	mustSend := func(what, to string, n int) time.Duration {
		t.Helper()
		var d time.Duration
		var err error
		for i := 0; i < 10; i++ { // the listener may not be up yet
			if d, err = send(to, n); err == nil {
				t.Logf("%s: %d bytes alice→%s in %v", what, n, to, d.Round(time.Millisecond))
				return d
			}
			time.Sleep(300 * time.Millisecond)
		}
		t.Fatalf("%s: alice→%s: %v", what, to, err)
		return 0
	}

	t.Run("rate limit on one link", func(t *testing.T) {
		const n = 64 << 10 // 4.1 s at 128 kbit
		base := mustSend("before", "bob", n)
		if err := be.Impair(ctx, "alice", "bob", backend.Impairment{RateKbit: 128}); err != nil {
			t.Fatal(err)
		}
		limited := mustSend("alice~bob at 128 kbit", "bob", n)
		other := mustSend("alice~bob at 128 kbit, to btcd", "btcd", n)
		if limited < 3*time.Second || limited > 8*time.Second {
			t.Errorf("64 KiB at 128 kbit took %v, want about 4.1 s", limited)
		}
		if other > base+time.Second {
			t.Errorf("traffic to btcd slowed too: %v (before, to bob: %v)", other, base)
		}
		if err := be.Clear(ctx, "alice", "bob"); err != nil {
			t.Fatal(err)
		}
		if d := mustSend("cleared", "bob", n); d > base+time.Second {
			t.Errorf("still slow after Clear: %v", d)
		}
		if q := qdiscs(t, ctx, be.RunID(), ids["alice"], img); strings.Contains(q, "htb") {
			t.Errorf("qdisc left after Clear: %s", q)
		}
	})

	netemErr := be.Impair(ctx, "alice", "", backend.Impairment{Delay: 50 * time.Millisecond})
	mech, probe := Mechanism(ctx, be.RunID(), img)
	if (probe == nil) != (netemErr == nil) || (probe == nil && mech != be.ImpairMechanism()) {
		t.Errorf("Mechanism says %q %v, Impair %v with %q", mech, probe, netemErr, be.ImpairMechanism())
	}
	t.Logf("delay and loss by %q", mech)
	if netemErr != nil {
		if !strings.Contains(netemErr.Error(), "sch_netem") {
			t.Fatalf("delay: %v", netemErr)
		}
		t.Logf("this kernel has no netem; Impair says: %v", netemErr)
		if q := qdiscs(t, ctx, be.RunID(), ids["alice"], img); strings.Contains(q, "htb") {
			t.Errorf("a failed Impair left a qdisc: %s", q)
		}
	}
	t.Run("50 ms delay shifts gRPC latency", func(t *testing.T) {
		if netemErr != nil {
			t.Skip(netemErr.Error())
		}
		// ForwardingHistory reads alice's database only: one crossing of
		// the delay per call. GetInfo also asks btcd (best block, sync
		// state) over the same interface, so it shifts by several.
		fwd := func() error { _, err := alice.ForwardedCount(ctx); return err }
		info := func() error { _, err := alice.Info(ctx); return err }
		during, infoDuring := medianCall(t, 15, fwd), medianCall(t, 15, info)
		if mech == MechNFQueue && len(delayers(t, ctx, be.RunID())) != 1 {
			t.Errorf("want one delayer running, got %v", delayers(t, ctx, be.RunID()))
		}
		if err := be.Clear(ctx, "alice", ""); err != nil {
			t.Fatal(err)
		}
		if left := delayers(t, ctx, be.RunID()); len(left) > 0 {
			t.Errorf("delayers left after Clear: %v", left)
		}
		before, infoBefore := medianCall(t, 15, fwd), medianCall(t, 15, info)
		shift := during - before
		t.Logf("forwardinghistory median %v without, %v with a 50 ms delay (%s): shift %v", before, during, mech, shift)
		t.Logf("getinfo median %v without, %v with: shift %v (it also waits on btcd)", infoBefore, infoDuring, infoDuring-infoBefore)
		if shift < 40*time.Millisecond || shift > 80*time.Millisecond {
			t.Errorf("shift %v, want 40-80 ms", shift)
		}
	})
	t.Run("jitter varies the delay", func(t *testing.T) {
		if netemErr != nil {
			t.Skip(netemErr.Error())
		}
		if err := be.Impair(ctx, "alice", "", backend.Impairment{Delay: 50 * time.Millisecond, Jitter: 20 * time.Millisecond}); err != nil {
			t.Fatal(err)
		}
		var ds []time.Duration
		for i := 0; i < 30; i++ {
			start := time.Now()
			if _, err := alice.ForwardedCount(ctx); err != nil {
				t.Fatal(err)
			}
			ds = append(ds, time.Since(start))
		}
		if err := be.Clear(ctx, "alice", ""); err != nil {
			t.Fatal(err)
		}
		slices.Sort(ds)
		lo, hi := ds[0], ds[len(ds)-1]
		t.Logf("forwardinghistory with 50 ms ± 20 ms (%s): %v to %v, median %v", mech, lo, hi, ds[len(ds)/2])
		if lo < 25*time.Millisecond || hi < 55*time.Millisecond || hi-lo < 15*time.Millisecond {
			t.Errorf("want calls spread over about 30-70 ms, got %v to %v", lo, hi)
		}
	})
	t.Run("100% loss on one link", func(t *testing.T) {
		if netemErr != nil {
			t.Skip(netemErr.Error())
		}
		if err := be.Impair(ctx, "alice", "bob", backend.Impairment{LossPercent: 100}); err != nil {
			t.Fatal(err)
		}
		if d, err := send("bob", 100); err == nil {
			t.Errorf("alice→bob went through 100%% loss in %v", d)
		}
		mustSend("alice~bob lossy, to btcd", "btcd", 100)
		if err := be.Clear(ctx, "alice", "bob"); err != nil {
			t.Fatal(err)
		}
		mustSend("cleared", "bob", 100)
	})

	t.Run("pause and resume", func(t *testing.T) {
		if err := be.Pause(ctx, "alice"); err != nil {
			t.Fatal(err)
		}
		cctx, ccancel := context.WithTimeout(ctx, 2*time.Second)
		_, err := alice.Info(cctx)
		ccancel()
		if err == nil {
			t.Error("a paused node answered getinfo")
		}
		t.Logf("paused: getinfo %v", err)
		if err := be.Resume(ctx, "alice"); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		cctx, ccancel = context.WithTimeout(ctx, 10*time.Second)
		defer ccancel()
		if _, err := alice.Info(cctx); err != nil {
			t.Fatalf("resumed: %v", err)
		}
		t.Logf("resumed: getinfo answered in %v", time.Since(start).Round(time.Millisecond))
	})

	t.Run("restart", func(t *testing.T) {
		// An impairment outlives the restart: the new network namespace gets it too.
		if err := be.Impair(ctx, "alice", "btcd", backend.Impairment{RateKbit: 100000}); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		ep, err := be.Restart(ctx, "alice")
		if err != nil {
			t.Fatal(err)
		}
		if q := qdiscs(t, ctx, be.RunID(), ids["alice"], img); !strings.Contains(q, "htb 1:") {
			t.Errorf("impairment not re-applied after restart: %q", q)
		}
		if err := be.Clear(ctx, "alice", "btcd"); err != nil {
			t.Fatal(err)
		}
		t.Logf("restart: TLS answers at %s (was %s) after %v", ep.RPCHost, eps["alice"].RPCHost, time.Since(start).Round(time.Millisecond))
		c := dialReady(t, ctx, ep)
		info, err := c.Info(ctx)
		if err != nil || info.Alias != "alice" {
			t.Fatalf("getinfo via the new endpoint: %+v %v", info, err)
		}
		t.Logf("restart: getinfo via the new endpoint after %v", time.Since(start).Round(time.Millisecond))
		chain, err := be.Restart(ctx, "btcd")
		if err != nil || !strings.HasPrefix(chain.RPCHost, "127.0.0.1:") {
			t.Fatalf("restart btcd: %+v %v", chain, err)
		}
	})

	t.Run("kill", func(t *testing.T) {
		if err := be.Kill(ctx, "bob"); err != nil {
			t.Fatal(err)
		}
		status, code, err := containerState(ctx, ids["bob"])
		if err != nil || status != "exited" || code != 137 {
			t.Errorf("bob after kill: %s %d %v", status, code, err)
		}
		if dead := be.Dead(ctx); len(dead) != 1 || dead[0].Actor != "bob" || dead[0].ExitCode != 137 || dead[0].Signal != "SIGKILL" || dead[0].OOM {
			t.Errorf("Dead: %v", dead)
		}
	})

	// Nodes stayed unprivileged; helpers are gone.
	out, err := docker(ctx, "inspect", "--format", "{{.HostConfig.CapDrop}} {{.HostConfig.CapAdd}} {{.HostConfig.ReadonlyRootfs}}", ids["alice"])
	if err != nil || out != "[ALL] [] true" {
		t.Errorf("alice's privileges: %q %v", out, err)
	}
	if left, _ := docker(ctx, "ps", "-aq", "--filter", "label=lnbench.role="+HelperRole, "--filter", "label="+backend.Label+"="+be.RunID()); left != "" {
		t.Errorf("helpers left: %s", left)
	}
	if left := delayers(t, ctx, be.RunID()); len(left) > 0 {
		t.Errorf("delayers left: %v", left)
	}
	if err := be.Teardown(ctx); err != nil {
		t.Fatal(err)
	}
}

func dialReady(t *testing.T, ctx context.Context, ep backend.NodeEndpoint) node.Node {
	t.Helper()
	c, err := drivers.Builtin()["lnd"].Dial(ep.Name, node.Endpoint{RPCHost: ep.RPCHost, TLSCertPath: ep.TLSCertPath, MacaroonPath: ep.MacaroonPath})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	wctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	if err := c.WaitReady(wctx); err != nil {
		t.Fatalf("%s not ready: %v", ep.Name, err)
	}
	return c
}

// medianCall is the median duration of n calls of fn.
func medianCall(t *testing.T, n int, fn func() error) time.Duration {
	t.Helper()
	var ds []time.Duration
	for i := 0; i < n; i++ {
		start := time.Now()
		if err := fn(); err != nil {
			t.Fatal(err)
		}
		ds = append(ds, time.Since(start))
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2]
}

// qdiscs shows a container's qdiscs, read from a helper as Impair runs one.
func qdiscs(t *testing.T, ctx context.Context, runID, id, img string) string {
	t.Helper()
	args := slices.Clone(helperArgs(runID, "", id, img))
	args[len(args)-1] = "tc qdisc show dev " + netDev
	out, err := docker(ctx, args...)
	if err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	return out
}

// delayers lists the run's running delayer containers.
func delayers(t *testing.T, ctx context.Context, runID string) []string {
	t.Helper()
	out, err := docker(ctx, "ps", "-q", "--filter", "label=lnbench.role="+DelayerRole, "--filter", "label="+backend.Label+"="+runID)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(out)
}

// staticTool builds the static lnbench the delayer helper runs.
func staticTool(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "lnbench")
	cmd := exec.Command("go", "build", "-o", out, "github.com/lnbench/lnbench/cmd/lnbench")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building a static lnbench: %v\n%s", err, b)
	}
	return out
}
