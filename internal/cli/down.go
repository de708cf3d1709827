package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/backend/compose"
	"github.com/lnbench/lnbench/backend/swarm"
	"github.com/lnbench/lnbench/internal/runs"
)

// runEngine is what down and ps need of a Docker engine; nil when none answers.
type runEngine interface {
	RunObjects(ctx context.Context) (map[string]int, error)
	Down(ctx context.Context, runID string) (compose.Removed, error)
}

type dockerEngine struct{}

func (dockerEngine) RunObjects(ctx context.Context) (map[string]int, error) {
	return compose.RunObjects(ctx)
}
func (dockerEngine) Down(ctx context.Context, id string) (compose.Removed, error) {
	return compose.Down(ctx, id)
}

// localEngine is the machine's Docker engine when it answers.
func localEngine(ctx context.Context) runEngine {
	if compose.EngineAnswers(ctx, 5*time.Second) != nil {
		return nil
	}
	return dockerEngine{}
}

func downCmd(stdout, stderr io.Writer) *cobra.Command {
	return downCmdWith(downEnv{stdout: stdout, stderr: stderr, engineOf: localEngine})
}

// downEnv is what down works with: its output, the local engine (compose)
// and how it reaches the engines of a swarm.
type downEnv struct {
	stdout, stderr io.Writer
	engineOf       func(context.Context) runEngine
	// swarmRun runs docker against a swarm's engines; nil is the docker CLI.
	swarmRun swarm.Runner
}

func downCmdWith(env downEnv) *cobra.Command {
	stdout, engineOf := env.stdout, env.engineOf
	if env.stderr == nil {
		env.stderr = io.Discard
	}
	var all bool
	var backendName, enginesFile string
	cmd := &cobra.Command{
		Use:   "down [run id | --all]",
		Short: "Remove what a run left: containers, networks, volumes (label " + backend.Label + ") and its work folder",
		Long: "Remove exactly the containers, networks and volumes labelled " + backend.Label + "=<run id>,\n" +
			"and the run's work folder (node data dirs: wallets, macaroons, TLS keys) under " + runs.Root() + ",\n" +
			"or those of every run with --all. Images and unlabelled objects are left alone; a live\n" +
			"harness keeps its work folder (it removes it when it ends). `lnbench ps` lists the runs.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if all == (len(args) == 1) {
				return errors.New("give a run id or --all (not both); `lnbench ps` lists the runs")
			}
			ctx := cmd.Context()
			switch kind := backendKinds[backendName]; {
			case kind.engines:
				return downSwarm(ctx, env, enginesFile, args)
			case !kind.images:
				return fmt.Errorf("--backend %q: use compose (this engine) or swarm (every engine of the engines file)", backendName)
			}
			engine := engineOf(ctx)
			known, err := knownRuns(ctx, engine)
			if err != nil {
				return err
			}
			if all {
				return downAll(ctx, stdout, known, engine)
			}
			id := args[0]
			if id == "" || strings.ContainsAny(id, `/\`) || id == "." || id == ".." {
				return fmt.Errorf("run id %q: give a run id as `lnbench ps` lists it, e.g. 20260101T120000Z-AlicePaysBob", id)
			}
			r, ok := runs.Find(known, id)
			if !ok {
				return fmt.Errorf("no run %q on this machine; known runs: %s (`lnbench ps` lists them)", id, runs.IDs(known))
			}
			return downOne(ctx, stdout, r, engine)
		},
	}
	cmd.Flags().StringVar(&backendName, "backend", "compose", "compose (this engine) or swarm (the stack, then every engine of the swarm)")
	cmd.Flags().StringVar(&enginesFile, "swarm-engines", "", "swarm: the engines file (default $"+swarm.EnginesEnv+", else the testbed's)")
	cmd.Flags().BoolVar(&all, "all", false, "remove what every lnbench run left (any "+backend.Label+" value)")
	return cmd
}

// downSwarm removes a run's stack and sweeps every engine of the swarm
// that answers; the error names the engines that do not.
func downSwarm(ctx context.Context, env downEnv, enginesFile string, args []string) error {
	stdout := env.stdout
	id, what := "", "every run"
	if len(args) == 1 {
		id, what = args[0], "run "+args[0]
	}
	msg, err := swarmDown(ctx, enginesFile, id, env.swarmRun, env.stderr)
	errs := []error{err}
	// The work folder `lnbench up --backend swarm` keeps (btcd's RPC key,
	// the nodes' macaroons and TLS certificates copied out).
	if known, lerr := runs.Local(runs.Root()); lerr == nil {
		if r, ok := runs.Find(known, id); ok && msg != "" && id != "" {
			msg += workDirLine(r, &errs)
		}
		if id == "" {
			// Every killed run's work folder goes, as with compose's --all.
			msg += workDirsLine(known, &errs)
		}
	}
	if msg != "" {
		fmt.Fprintf(stdout, "%s: %s\n", what, msg)
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("--backend swarm: %v", err)
	}
	return nil
}

// knownRuns lists work folders and, when a Docker engine answers, the run
// ids its labelled objects carry.
func knownRuns(ctx context.Context, engine runEngine) ([]runs.Run, error) {
	local, err := runs.Local(runs.Root())
	if err != nil {
		return nil, fmt.Errorf("work folders: %v", err)
	}
	if engine == nil {
		return local, nil
	}
	objects, err := engine.RunObjects(ctx)
	if err != nil {
		return nil, err
	}
	return runs.Merge(local, objects), nil
}

func downOne(ctx context.Context, stdout io.Writer, r runs.Run, engine runEngine) error {
	var errs []error
	removed := compose.Removed{}
	if engine != nil {
		var err error
		removed, err = engine.Down(ctx, r.ID)
		errs = append(errs, err)
	}
	fmt.Fprintf(stdout, "run %s: removed %s%s\n", r.ID, removed, workDirLine(r, &errs))
	return errors.Join(errs...)
}

func downAll(ctx context.Context, stdout io.Writer, known []runs.Run, engine runEngine) error {
	var errs []error
	removed := compose.Removed{}
	if engine != nil {
		var err error
		removed, err = engine.Down(ctx, "")
		errs = append(errs, err)
	}
	line := fmt.Sprintf("every run: removed %s", removed) + workDirsLine(known, &errs)
	fmt.Fprintln(stdout, line)
	return errors.Join(errs...)
}

// workDirsLine removes the work folders of runs whose harness is gone, and
// says how many it removed and kept.
func workDirsLine(known []runs.Run, errs *[]error) string {
	dirs, live := 0, 0
	for _, r := range known {
		switch {
		case !r.HasFolders():
		case r.Alive:
			live++
		default:
			if err := runs.RemoveWorkDir(r); err != nil {
				*errs = append(*errs, err)
			} else {
				dirs++
			}
		}
	}
	line := fmt.Sprintf(", %d work folder(s)", dirs)
	if live > 0 {
		line += fmt.Sprintf("; kept %d work folder(s) of live harnesses (they remove their own)", live)
	}
	return line
}

// workDirLine removes the run's work folder unless its harness is alive,
// and says which.
func workDirLine(r runs.Run, errs *[]error) string {
	switch {
	case !r.HasFolders():
		return ""
	case r.Alive:
		return fmt.Sprintf("; work folder kept: its harness (pid %d) is still running and removes it when it ends", r.PID)
	}
	if err := runs.RemoveWorkDir(r); err != nil {
		*errs = append(*errs, err)
		return ""
	}
	return ", and its work folder"
}
