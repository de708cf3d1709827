package runner

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/scenario"
	"github.com/lnbench/lnbench/usage"
)

// actorsOf lists what the test says is running.
type actorsOf struct {
	backend.Backend
	mu     sync.Mutex
	actors []backend.Actor
}

func (a *actorsOf) Actors(context.Context) ([]backend.Actor, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]backend.Actor(nil), a.actors...), nil
}

func sleeper(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd
}

// A restarted actor has new processes: the sampler lists it again and
// keeps sampling it instead of failing on the old pid.
func TestResourceSamplerFollowsARestartedActor(t *testing.T) {
	old := sleeper(t)
	be := &actorsOf{actors: []backend.Actor{{Name: "bob", Role: usage.RoleNode, PID: old.Process.Pid}}}
	var log bytes.Buffer
	path := filepath.Join(t.TempDir(), usage.FileName)
	rs, err := newResourceSampler(path, "net", be, &log, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c := scenario.Case{}
	rs.startCase(ctx, c)
	old.Process.Kill()
	old.Wait()
	fresh := sleeper(t)
	be.mu.Lock()
	be.actors = []backend.Actor{{Name: "bob", Role: usage.RoleNode, PID: fresh.Process.Pid}}
	be.mu.Unlock()
	rs.follow(ctx, "bob")
	rs.iteration(ctx, "measure", 0)
	rs.iterationEnd(ctx)
	rs.stop()
	if log.Len() > 0 {
		t.Fatalf("sampling failed after the restart: %s", log.String())
	}
	samples, err := usage.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	bob := 0
	for _, s := range samples {
		if s.Actor == "bob" {
			bob++
		}
	}
	if bob < 3 {
		t.Fatalf("%d samples of bob after following it, want ≥ 3: %+v", bob, samples)
	}
}
