package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/node"
	"github.com/lnbench/lnbench/scenario"
)

// TestDeathInSetupEndsTheSetup: a node that dies while the network sets
// up ends the setup at the watch's next tick, not at the phase timeout,
// with the death as the error; the network is torn down.
func TestDeathInSetupEndsTheSetup(t *testing.T) {
	h := &harness{ticks: make(chan time.Time)}
	killed := make(chan struct{})
	var once sync.Once
	h.fleet.Hooks.WaitReady = func(ctx context.Context, name string) error {
		if name != "alice" {
			return nil
		}
		once.Do(func() {
			h.fleet.Backends()[0].Kill("alice")
			close(killed)
		})
		<-ctx.Done()                                                    // a dead node never gets ready: only the watch ends this
		return fmt.Errorf("connection refused: %w", context.Cause(ctx)) // as wait.Until does
	}
	s := smallScenario()
	run := newRun(t, s)
	done := make(chan error, 1)
	go func() {
		_, err := Execute(context.Background(), h.options(s, t), run)
		done <- err
	}()
	select {
	case <-killed:
	case err := <-done:
		t.Fatalf("run ended (%v) before alice started", err)
	}
	h.ticks <- time.Now()
	var err error
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("setup still waiting 10 s after the watch saw alice dead")
	}
	t.Log(err)
	var de *backend.DeadError
	if !errors.As(err, &de) || len(de.Deaths) != 1 || de.Deaths[0].Actor != "alice" {
		t.Fatalf("run ended with %v, want alice's death", err)
	}
	if got := err.Error(); !strings.HasPrefix(got, "network launch1/Concurrency=1/TotalPayments=6, setup nodes: alice died: killed by SIGKILL; last log lines:\n  fake crash") {
		t.Errorf("error %q: want the phase, the actor, the signal and the log tail", got)
	}
	if n := h.fleet.Backends()[0].TornDown(); n != 1 {
		t.Errorf("network torn down %d times, want 1", n)
	}
}

// TestDeathBetweenTicksIsStillNamed: a phase that fails on its own before
// the watch's next tick (a dead node refuses connections) is explained by
// one more question to the backend: the error names the death, not the
// refused connection.
func TestDeathBetweenTicksIsStillNamed(t *testing.T) {
	h := &harness{ticks: make(chan time.Time)} // never ticks
	h.fleet.Hooks.WaitReady = func(ctx context.Context, name string) error {
		if name == "bob" {
			h.fleet.Backends()[0].Kill("bob")
			return errors.New("connection refused")
		}
		return nil
	}
	s := smallScenario()
	_, _, err := execute(t, h.options(s, t))
	var de *backend.DeadError
	if !errors.As(err, &de) || de.Deaths[0].Actor != "bob" || !strings.Contains(err.Error(), "setup nodes: bob died") {
		t.Fatalf("run ended with %v, want bob's death in setup", err)
	}
}

// TestDeathWhileAPairSetsUp: a launch pair's networks set up at once; a
// death in one that is up ends the other's setup (which would otherwise
// wait here for ever), and the error names the death.
func TestDeathWhileAPairSetsUp(t *testing.T) {
	h := &harness{ticks: make(chan time.Time)}
	killed := make(chan struct{})
	var once sync.Once
	h.fleet.Hooks.WaitReady = func(ctx context.Context, name string) error {
		if len(h.fleet.Backends()) < 2 || name != "alice" {
			return nil
		}
		once.Do(func() {
			h.fleet.Backends()[0].Kill("bob")
			close(killed)
		})
		<-ctx.Done()
		return ctx.Err()
	}
	s := smallScenario()
	s.Params = params("Concurrency", "1", "TotalPayments", "6")
	s.Nodes, _ = scenario.ParseNodeFlags([]string{"a=lnd@v0.21.0-beta", "b=lnd@v0.21.0-beta"})
	s.Baseline = "a"
	s.Compare.Design = scenario.DesignInterleaved
	run := newRun(t, s)
	done := make(chan error, 1)
	go func() {
		_, err := Execute(context.Background(), h.options(s, t), run)
		done <- err
	}()
	select {
	case <-killed:
	case err := <-done:
		t.Fatalf("run ended (%v) before the second network started", err)
	}
	// Both watches may take a tick; the first network's sees bob.
	go func() {
		for {
			select {
			case h.ticks <- time.Now():
			case <-time.After(5 * time.Second):
				return
			}
		}
	}()
	var err error
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the second network's setup went on after the first lost bob")
	}
	var de *backend.DeadError
	if !errors.As(err, &de) || de.Deaths[0].Actor != "bob" {
		t.Fatalf("run ended with %v, want bob's death", err)
	}
	t.Log(err)
	if !strings.Contains(err.Error(), ": bob died") {
		t.Errorf("error %q: want the network that lost bob named", err)
	}
	for i, b := range h.fleet.Backends() {
		if b.TornDown() != 1 {
			t.Errorf("network %d torn down %d times", i, b.TornDown())
		}
	}
}

// TestStartDeathGathersTheOthers: a backend that reports one node's death
// from its start (compose's wait for a container) is asked once more, so
// nodes that died with it are named too, each once.
func TestStartDeathGathersTheOthers(t *testing.T) {
	h := &harness{ticks: make(chan time.Time)} // never ticks
	h.fleet.Hooks.WaitReady = func(ctx context.Context, name string) error {
		if name == "alice" {
			b := h.fleet.Backends()[0]
			b.Kill("alice")
			b.Kill("bob")
			return &backend.DeadError{Deaths: []backend.Death{{Actor: "alice", Reason: "exited", ExitCode: 137, OOM: true, MemoryLimit: 128 << 20}}}
		}
		<-ctx.Done()
		return ctx.Err()
	}
	_, _, err := execute(t, h.options(smallScenario(), t))
	var de *backend.DeadError
	if !errors.As(err, &de) || strings.Join(de.Actors(), ",") != "alice,bob" {
		t.Fatalf("run ended with %v, want alice's and bob's deaths", err)
	}
	if !strings.Contains(err.Error(), "alice died: OOM-killed at its memory limit of 128 MiB (exit code 137)") {
		t.Errorf("alice's death as her backend said it: %v", err)
	}
}

// TestTeardownFailureAfterADeath: a teardown that leaves something after
// a death (a swarm engine lost) is not hidden behind the death: the run's
// error carries both, in setup and in a case, and the manifest's
// warnings say what was left.
func TestTeardownFailureAfterADeath(t *testing.T) {
	for _, phase := range []string{"setup", "case"} {
		t.Run(phase, func(t *testing.T) {
			h := &harness{ticks: make(chan time.Time)}
			var once sync.Once
			kill := func() { once.Do(func() { h.fleet.Backends()[0].Kill("bob") }) }
			if phase == "setup" {
				// The phase fails before any tick: the failure asks.
				h.fleet.Hooks.WaitReady = func(ctx context.Context, name string) error {
					if name == "bob" {
						kill()
						return errors.New("connection refused")
					}
					return nil
				}
			} else {
				// After the route probes, payments hang on the dead node
				// until the watch's tick.
				var paid atomic.Int32
				h.fleet.Hooks.Pay = func(ctx context.Context, payer string, amt int64) (node.PaymentResult, error) {
					if paid.Add(1) <= 4 {
						return node.PaymentResult{Succeeded: true, Hops: 1}, nil
					}
					kill()
					select {
					case h.ticks <- time.Now():
					case <-ctx.Done():
					}
					<-ctx.Done()
					return node.PaymentResult{}, ctx.Err()
				}
			}
			h.fleet.Hooks.Teardown = func(context.Context) error {
				return errors.New("engine lnbe-3 does not answer: the containers and volumes of bob stay there")
			}
			s := smallScenario()
			run, _, err := execute(t, h.options(s, t))
			t.Log(err)
			var de *backend.DeadError
			if !errors.As(err, &de) || de.Deaths[0].Actor != "bob" {
				t.Fatalf("run ended with %v, want bob's death", err)
			}
			if in := map[string]string{"setup": "setup nodes: bob died", "case": "iteration 1: bob died"}[phase]; !strings.Contains(err.Error(), in) {
				t.Errorf("error %q: want the death in %q", err, in)
			}
			want := "tearing down launch1/Concurrency=1/TotalPayments=6: engine lnbe-3 does not answer: the containers and volumes of bob stay there"
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q lacks the teardown's %q", err, want)
			}
			if w := manifest(t, run).Warnings; !slices.Contains(w, want) {
				t.Errorf("manifest warnings %q lack %q", w, want)
			}
		})
	}
}
