package cli

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sort"
	"strings"
	"time"

	"github.com/lnbench/lnbench/backend/compose"
)

// backendKind is one backend as the CLI sees it: a name, a probe that says
// whether this machine can run it, and what it can do. The CLI asks these
// capabilities instead of testing the backend's name.
type backendKind struct {
	name string
	// probe returns nil when the backend can run here; its error names the fix.
	probe func(ctx context.Context) error
	// images: nodes run in containers of the node images (built before the run).
	images bool
	// engines: the containers spread over several engines (images are
	// distributed first; the engines file is checked before any build).
	engines bool
	// limits: per-node cpus/memory limits apply.
	limits bool
	// faults: pause, restart and kill faults; impairments: delay, loss and
	// rate on a node's links (and the engine's kernel is probed for them).
	faults, impairments bool
	// cln: runs Core Lightning nodes.
	cln bool
	// noCPUSets says why a duet's networks cannot get CPU sets ("" if they can).
	noCPUSets string
	// outlives: containers outlive the command (lnbench up).
	outlives bool
	// fix is what to do when the probe fails.
	fix string
}

// backendKinds is the registry: every backend lnbench runs on.
var backendKinds = map[string]backendKind{
	"local": {name: "local", probe: func(context.Context) error { return nil },
		faults: true, cln: true},
	"compose": {name: "compose", probe: probeCompose,
		images: true, limits: true, faults: true, impairments: true, cln: true, outlives: true,
		fix: "start Docker or use --backend local"},
	"swarm": {name: "swarm", probe: probeSwarm,
		images: true, engines: true, limits: true, outlives: true,
		noCPUSets: "the swarm backend places networks on engines", fix: "or use --backend compose or local"},
}

// backendNames lists the registry's names, sorted, for error messages:
// "compose, local or swarm".
func backendNames() string {
	var names []string
	for n := range backendKinds {
		names = append(names, n)
	}
	sort.Strings(names)
	last := len(names) - 1
	return strings.Join(names[:last], ", ") + " or " + names[last]
}

func probeCompose(ctx context.Context) error {
	if err := compose.EngineAnswers(ctx, 5*time.Second); err != nil {
		return fmt.Errorf("no Docker engine answered (%v)", err)
	}
	if _, err := compose.DetectTool(ctx); err != nil {
		return fmt.Errorf("the Docker engine answered but %v", err)
	}
	return nil
}

// probeSwarm checks the docker command only: the swarm itself is checked
// by swarmCluster, with the engines file.
func probeSwarm(context.Context) error {
	if _, err := exec.LookPath("docker"); err != nil {
		return errors.New("no docker command on this machine (install the Docker CLI)")
	}
	return nil
}

// chooseBackend resolves a --backend value: a registered name if its probe
// passes; "auto" is compose when its probe passes, else local with a note
// saying why.
func chooseBackend(name string) (backendKind, string, error) {
	ctx := context.Background()
	if name == "auto" {
		if err := probeCompose(ctx); err != nil {
			return backendKinds["local"], fmt.Sprintf("%v; using the local-process backend", err), nil
		}
		return backendKinds["compose"], "", nil
	}
	k, ok := backendKinds[name]
	if !ok {
		return backendKind{}, "", fmt.Errorf("--backend %q: use auto, %s", name, backendNames())
	}
	if err := k.probe(ctx); err != nil {
		return backendKind{}, "", fmt.Errorf("--backend %s: %v; %s", name, err, k.fix)
	}
	return k, "", nil
}
