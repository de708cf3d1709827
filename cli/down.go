package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/backend/driver"
	"github.com/lnbench/lnbench/internal/runs"
)

// runEngine is what down and ps need of this machine's Docker engine; nil
// when none answers.
type runEngine = driver.Objects

// localEngine is this machine's engine when it answers: the objects of
// the backends that keep theirs there.
func localEngine(ctx context.Context) runEngine {
	for _, n := range driver.Names(nil) {
		d, _ := driver.Lookup(n)
		if lo, ok := d.(driver.LocalObjects); ok {
			if o := lo.Objects(ctx); o != nil {
				return o
			}
		}
	}
	return nil
}

func downCmd(stdout, stderr io.Writer) *cobra.Command {
	return downCmdWith(downEnv{stdout: stdout, stderr: stderr, engineOf: localEngine})
}

// downEnv is what down works with: its output, this machine's engine and
// how it reaches the engines of a backend spread over several.
type downEnv struct {
	stdout, stderr io.Writer
	engineOf       func(context.Context) runEngine
	// docker runs docker against one engine; nil is the docker CLI.
	docker func(ctx context.Context, host string, env []string, args ...string) (string, error)
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
			d, _ := driver.Lookup(backendName)
			if sw, ok := d.(driver.Sweeper); ok {
				return downSweep(ctx, env, sw, backendName, enginesFile, args)
			}
			if _, ok := d.(driver.LocalObjects); !ok {
				return fmt.Errorf("--backend %q: use %s", backendName, driver.Either(driver.Names(outlives)))
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
	cmd.Flags().StringVar(&backendName, "backend", defaultUpBackend(), "where the run's objects are: "+driver.Either(driver.Names(outlives)))
	cmd.Flags().StringVar(&enginesFile, "swarm-engines", "", driver.EnginesHelp)
	cmd.Flags().BoolVar(&all, "all", false, "remove what every lnbench run left (any "+backend.Label+" value)")
	return cmd
}

// downSweep removes a run's objects from every engine of a backend spread
// over several that answers; the error names the engines that do not.
func downSweep(ctx context.Context, env downEnv, sw driver.Sweeper, backendName, enginesFile string, args []string) error {
	stdout := env.stdout
	id, what := "", "every run"
	if len(args) == 1 {
		id, what = args[0], "run "+args[0]
	}
	msg, err := sw.Sweep(ctx, driver.Options{EnginesFile: enginesFile, Log: env.stderr, Docker: env.docker}, id)
	errs := []error{err}
	// The work folder `lnbench up` keeps (btcd's RPC key,
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
		return fmt.Errorf("--backend %s: %v", backendName, err)
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
	var removed fmt.Stringer = nothingRemoved{}
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
	var removed fmt.Stringer = nothingRemoved{}
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

// nothingRemoved is what down removed where no engine answers.
type nothingRemoved struct{}

func (nothingRemoved) String() string { return "0 container(s), 0 network(s), 0 volume(s)" }
