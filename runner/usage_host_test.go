package runner

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/scenario"
	"github.com/lnbench/lnbench/usage"
)

// A backend that lists its actors runs them on this host: every snapshot
// carries the host pseudo-actor, tagged like the actors, its busy CPU
// never below what the harness alone used.
func TestResourceSamplerWritesTheHost(t *testing.T) {
	be := &actorsOf{actors: []backend.Actor{{Name: "bob", Role: usage.RoleNode, PID: sleeper(t).Process.Pid}}}
	var log bytes.Buffer
	path := filepath.Join(t.TempDir(), usage.FileName)
	rs, err := newResourceSampler(path, "net", be, &log, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rs.startCase(ctx, scenario.Case{})
	rs.iteration(ctx, "measure", 1)
	rs.iterationEnd(ctx)
	rs.stop()
	if log.Len() > 0 {
		t.Fatalf("sampling: %s", log.String())
	}
	samples, err := usage.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var host, harness []usage.Sample
	for _, s := range samples {
		switch s.Role {
		case usage.RoleHost:
			host = append(host, s)
		case usage.RoleHarness:
			harness = append(harness, s)
		}
	}
	if len(host) != len(harness) || len(host) < 3 {
		t.Fatalf("%d host samples for %d harness samples, want as many and ≥ 3", len(host), len(harness))
	}
	h := host[len(host)-2] // the iteration's end; the last is the case's
	if h.Actor != usage.RoleHost || h.Source != usage.SourceProcStat || h.Network != "net" || h.CPULimit < 1 || h.Phase != "measure" || h.Iteration != 1 {
		t.Errorf("host sample %+v", h)
	}
	if h.CPUSeconds() < harness[len(harness)-1].CPUSeconds() {
		t.Errorf("host busy %g s < harness %g s", h.CPUSeconds(), harness[len(harness)-1].CPUSeconds())
	}
}

// The host's CPU is sampled only when every actor runs here: a swarm's
// container on another engine whose processes are not visible here may be
// on another machine; one whose are (the test bed's engines) is not.
func TestOnThisHost(t *testing.T) {
	local := backend.Actor{Name: "alice", PID: 10}
	visible := backend.Actor{Name: "bob", ContainerID: "c1", Engine: "unix:///e/lnbe-2/docker.sock", PID: 11, CgroupPath: "/docker/c1"}
	remote := backend.Actor{Name: "carol", ContainerID: "c2", Engine: "ssh://root@node3"}
	compose := backend.Actor{Name: "dave", ContainerID: "c3"} // this machine's engine, rootless
	if !onThisHost([]backend.Actor{local, visible, compose}) {
		t.Error("actors of this host: no host sample")
	}
	if onThisHost([]backend.Actor{local, visible, remote}) {
		t.Error("an actor on another machine: the host's CPU would be sampled as if it ran here")
	}
}
