package compose

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/internal/dockercli"
	"github.com/lnbench/lnbench/internal/lines"
)

// Tool is the compose command line found on this machine: `docker compose`
// (v2) or `docker-compose` (v1).
type Tool struct {
	Argv    []string // e.g. ["docker", "compose"]
	Version string
}

func (t Tool) String() string { return strings.Join(t.Argv, " ") + " " + t.Version }

// V1 tells whether t is docker-compose v1 (the Python tool).
func (t Tool) V1() bool { return len(t.Argv) == 1 && t.Argv[0] == "docker-compose" }

// ToolEnv forces one compose command line: "v1" (docker-compose) or "v2"
// (docker compose); unset or empty tries v2, then v1.
const ToolEnv = "LNBENCH_COMPOSE"

// toolCandidates lists the command lines to try for a ToolEnv value.
func toolCandidates(choice string) ([][]string, error) {
	switch choice {
	case "":
		return [][]string{{"docker", "compose"}, {"docker-compose"}}, nil
	case "v2":
		return [][]string{{"docker", "compose"}}, nil
	case "v1":
		return [][]string{{"docker-compose"}}, nil
	}
	return nil, fmt.Errorf("%s=%q: want v1 (docker-compose), v2 (docker compose) or unset (v2 when present, else v1)", ToolEnv, choice)
}

// DetectTool finds the compose command: v2 first, then v1, unless
// $LNBENCH_COMPOSE names one. It asks every time (a few milliseconds, once
// per backend): a tool installed after a failed look is found at the next one.
func DetectTool(ctx context.Context) (Tool, error) {
	choice := os.Getenv(ToolEnv)
	candidates, err := toolCandidates(choice)
	if err != nil {
		return Tool{}, err
	}
	for _, argv := range candidates {
		if _, err := exec.LookPath(argv[0]); err != nil {
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		out, err := exec.CommandContext(cctx, argv[0], append(argv[1:], "version", "--short")...).Output()
		cancel()
		if err == nil {
			return Tool{Argv: argv, Version: strings.TrimSpace(string(out))}, nil
		}
	}
	switch choice {
	case "v2":
		return Tool{}, fmt.Errorf("%s=v2 but `docker compose version` does not answer (install the Compose v2 CLI plugin, or unset %s)", ToolEnv, ToolEnv)
	case "v1":
		return Tool{}, fmt.Errorf("%s=v1 but `docker-compose version` does not answer (apt-get install docker-compose, or unset %s)", ToolEnv, ToolEnv)
	}
	return Tool{}, errors.New("neither `docker compose` (v2) nor `docker-compose` (v1) is installed (apt-get install docker-compose)")
}

// EngineAnswers runs `docker info` with a timeout; the error says why not.
func EngineAnswers(ctx context.Context, timeout time.Duration) error {
	if _, err := exec.LookPath("docker"); err != nil {
		return errors.New("no docker command")
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	out, err := exec.CommandContext(cctx, "docker", "info", "--format", "{{.ServerVersion}}").CombinedOutput()
	if cctx.Err() != nil {
		return fmt.Errorf("`docker info` did not answer within %v", timeout)
	}
	if err != nil {
		return fmt.Errorf("`docker info`: %s", lines.First(string(out)))
	}
	return nil
}

// docker runs one docker command and returns its trimmed stdout; the error
// carries stderr's first lines.
func docker(ctx context.Context, args ...string) (string, error) {
	return run(ctx, "docker", args...)
}

func run(ctx context.Context, name string, args ...string) (string, error) {
	return runEnv(ctx, nil, name, args...)
}

// runEnv runs a command with extra environment variables.
func runEnv(ctx context.Context, env []string, name string, args ...string) (string, error) {
	return runCmd(ctx, env, nil, name, args...)
}

// dockerInput runs one docker command with stdin from a string.
func dockerInput(ctx context.Context, stdin string, args ...string) (string, error) {
	return runCmd(ctx, nil, strings.NewReader(stdin), "docker", args...)
}

func runCmd(ctx context.Context, env []string, stdin io.Reader, name string, args ...string) (string, error) {
	return dockercli.Run(ctx, env, stdin, name, args...)
}

// Removed counts what a cleanup removed.
type Removed struct {
	Containers, Networks, Volumes int
}

func (r Removed) String() string {
	return fmt.Sprintf("%d container(s), %d network(s), %d volume(s)", r.Containers, r.Networks, r.Volumes)
}

// Down removes every container, network and volume labelled
// lnbench.run=<runID> (any lnbench.run value when runID is ""): containers
// first (forcibly), then the networks and volumes they used. Images and
// anything unlabelled are never touched.
func Down(ctx context.Context, runID string) (Removed, error) {
	return remove(ctx, runFilter(runID))
}

// Leftovers lists what still carries lnbench.run=<runID> (any value when
// runID is ""), as "container <id>" lines; empty when clean.
func Leftovers(ctx context.Context, runID string) ([]string, error) {
	return leftovers(ctx, runFilter(runID))
}

func runFilter(runID string) string {
	if runID == "" {
		return "label=" + backend.Label
	}
	return "label=" + backend.Label + "=" + runID
}

func filterArgs(filters []string) []string {
	var out []string
	for _, f := range filters {
		out = append(out, "--filter", f)
	}
	return out
}

// remove deletes the containers, networks and volumes matching every filter.
func remove(ctx context.Context, filters ...string) (Removed, error) {
	var r Removed
	var errs []error
	list := func(args ...string) []string {
		out, err := docker(ctx, append(args, filterArgs(filters)...)...)
		if err != nil {
			errs = append(errs, err)
			return nil
		}
		return strings.Fields(out)
	}
	if ids := list("ps", "-aq"); len(ids) > 0 {
		if _, err := docker(ctx, append([]string{"rm", "-f", "-v"}, ids...)...); err != nil {
			errs = append(errs, err)
		} else {
			r.Containers = len(ids)
		}
	}
	if ids := list("network", "ls", "-q"); len(ids) > 0 {
		if _, err := docker(ctx, append([]string{"network", "rm"}, ids...)...); err != nil {
			errs = append(errs, err)
		} else {
			r.Networks = len(ids)
		}
	}
	if ids := list("volume", "ls", "-q"); len(ids) > 0 {
		if _, err := docker(ctx, append([]string{"volume", "rm", "-f"}, ids...)...); err != nil {
			errs = append(errs, err)
		} else {
			r.Volumes = len(ids)
		}
	}
	return r, errors.Join(errs...)
}

func leftovers(ctx context.Context, filters ...string) ([]string, error) {
	var out []string
	for _, kind := range [][]string{{"container", "ps", "-aq"}, {"network", "network", "ls", "-q"}, {"volume", "volume", "ls", "-q"}} {
		s, err := docker(ctx, append(kind[1:], filterArgs(filters)...)...)
		if err != nil {
			return out, err
		}
		for _, id := range strings.Fields(s) {
			out = append(out, kind[0]+" "+id)
		}
	}
	return out, nil
}
