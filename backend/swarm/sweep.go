package swarm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/internal/lines"
)

// Removed counts what a sweep removed.
type Removed struct {
	Services, Containers, Networks, Volumes, Configs, Secrets int
}

func (r Removed) String() string {
	return fmt.Sprintf("%d service(s), %d container(s), %d network(s), %d volume(s), %d config(s), %d secret(s)",
		r.Services, r.Containers, r.Networks, r.Volumes, r.Configs, r.Secrets)
}

// How long a sweep waits: for an engine to answer at all, for one docker
// command, and for what it removed to be gone (tasks stop, overlay
// networks leave the workers once their containers are gone).
var (
	probeTimeout = 10 * time.Second
	callTimeout  = 30 * time.Second
	sweepWait    = 60 * time.Second
	// sayEvery paces the sweep's progress lines while it waits.
	sayEvery = 5 * time.Second
)

// Lost is an engine that did not answer: nothing on it could be listed or
// removed.
type Lost struct {
	Engine Engine
	Err    string // why, in one line
	// Services are the run's services that ran there, when the caller
	// knows (Teardown does): their containers and volumes stay on it.
	Services []string
}

// LeftError is a sweep that could not remove everything it matched: what
// is still there on the engines that answer, and the engines that did not
// answer. Its message lists them by engine, on one line.
type LeftError struct {
	// Filter is the label filter swept ("lnbench.run=<id>").
	Filter string
	// Left are the objects still there on engines that answer, as
	// "<engine> <kind> <id>".
	Left []string
	Lost []Lost
	// NoManager says why the swarm's services, configs and secrets could
	// not be removed: no manager answered ("" when one did).
	NoManager string
	// Errs are the removals that failed in the last round.
	Errs []error
}

func (e *LeftError) Error() string {
	var parts []string
	if e.NoManager != "" {
		parts = append(parts, "no swarm manager answers ("+e.NoManager+"): the stack's services, configs and secrets stay in the swarm")
	}
	byEngine := map[string][]string{}
	var engines []string
	for _, l := range e.Left {
		name, what, _ := strings.Cut(l, " ")
		if _, ok := byEngine[name]; !ok {
			engines = append(engines, name)
		}
		byEngine[name] = append(byEngine[name], what)
	}
	for _, name := range engines {
		parts = append(parts, "left on "+name+": "+strings.Join(byEngine[name], ", "))
	}
	for _, l := range e.Lost {
		what := "whatever carries " + e.Filter + " there (containers, networks, volumes) stays"
		if len(l.Services) > 0 {
			what = "the containers and volumes of " + strings.Join(l.Services, ", ") + " (" + e.Filter + ") stay there"
		}
		parts = append(parts, fmt.Sprintf("engine %s (%s) does not answer (%s): %s", l.Engine.Name, l.Engine.Host, l.Err, what))
	}
	if len(e.Errs) > 0 {
		parts = append(parts, "last failure: "+lines.First(e.Errs[len(e.Errs)-1].Error()))
	}
	if len(parts) == 0 {
		return "sweep of " + e.Filter + " did not finish"
	}
	return strings.Join(parts, "; ")
}

// Unreachable names the engines that did not answer.
func (e *LeftError) Unreachable() []string {
	var out []string
	for _, l := range e.Lost {
		out = append(out, l.Engine.Name)
	}
	return out
}

// Down removes every stack object labelled lnbench.run=<runID> from the
// swarm (services, configs, secrets, through a manager) and every labelled
// container, network and volume from each engine that answers; "" is
// every run. Engines that do not answer are skipped and named in the
// error (a *LeftError), with what may remain on them.
func Down(ctx context.Context, c Cluster, runID string, log io.Writer) (Removed, error) {
	f := "label=" + backend.Label
	if runID != "" {
		f += "=" + runID
	}
	return Sweep(ctx, c, log, f)
}

// Sweep removes what matches every filter: services, configs and secrets
// through a manager (c.Manager, else any engine of c that answers as one),
// containers, networks and volumes on each engine. It first asks every
// engine whether it answers (probeTimeout) and skips those that do not;
// then it removes and lists again until nothing matches on the engines
// that answer, for at most sweepWait, saying on log every sayEvery what it
// waits for. Every docker command has its own timeout, so a sweep ends in
// bounded time whatever the engines do. The error, a *LeftError, lists
// what is left where and the engines it could not reach.
func Sweep(ctx context.Context, c Cluster, log io.Writer, filters ...string) (Removed, error) {
	if log == nil {
		log = io.Discard
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, probeTimeout+sweepWait+3*callTimeout)
	defer cancel()
	var r Removed
	var labels []string
	for _, f := range filters {
		labels = append(labels, strings.TrimPrefix(f, "label="))
	}
	le := &LeftError{Filter: strings.Join(labels, " and ")}
	up, lost := c.probe(ctx, c.Engines)
	for _, l := range lost {
		fmt.Fprintf(log, "swarm: engine %s (%s) does not answer (%s); skipping it: what is on it stays\n", l.Engine.Name, l.Engine.Host, l.Err)
	}
	le.Lost = lost
	manager, why := c.managerOf(ctx, up)
	le.NoManager = why
	call := func(host string, args ...string) (string, error) {
		cctx, cancel := context.WithTimeout(ctx, callTimeout)
		defer cancel()
		return c.docker(cctx, host, args...)
	}
	fa := func(args ...string) []string {
		for _, f := range filters {
			args = append(args, "--filter", f)
		}
		return args
	}
	var errs []error
	failed := map[string]bool{} // engines whose commands failed this round
	rm := func(e Engine, count *int, list []string, remove []string) {
		out, err := call(e.Host, fa(list...)...)
		if err != nil {
			errs, failed[e.Name] = append(errs, err), true
			return
		}
		ids := strings.Fields(out)
		if len(ids) == 0 {
			return
		}
		if _, err := call(e.Host, append(remove, ids...)...); err != nil {
			errs, failed[e.Name] = append(errs, err), true
			return
		}
		*count += len(ids)
	}
	if manager != nil {
		rm(*manager, &r.Services, []string{"service", "ls", "-q"}, []string{"service", "rm"})
	}
	deadline := start.Add(sweepWait)
	said := start
	for {
		errs, failed = nil, map[string]bool{}
		for _, e := range up {
			rm(e, &r.Containers, []string{"ps", "-aq"}, []string{"rm", "-f", "-v"})
		}
		if manager != nil {
			rm(*manager, &r.Configs, []string{"config", "ls", "-q"}, []string{"config", "rm"})
			rm(*manager, &r.Secrets, []string{"secret", "ls", "-q"}, []string{"secret", "rm"})
		}
		for _, e := range up {
			rm(e, &r.Networks, []string{"network", "ls", "-q"}, []string{"network", "rm"})
			rm(e, &r.Volumes, []string{"volume", "ls", "-q"}, []string{"volume", "rm", "-f"})
		}
		// An engine whose commands failed and that no longer answers is
		// lost from here on: nothing more is asked of it.
		if len(failed) > 0 {
			var suspects []Engine
			for _, e := range up {
				if failed[e.Name] {
					suspects = append(suspects, e)
				}
			}
			if _, gone := c.probe(ctx, suspects); len(gone) > 0 {
				for _, l := range gone {
					fmt.Fprintf(log, "swarm: engine %s (%s) stopped answering (%s); skipping it: what is on it stays\n", l.Engine.Name, l.Engine.Host, l.Err)
					up = slices.DeleteFunc(up, func(e Engine) bool { return e.Name == l.Engine.Name })
					if manager != nil && manager.Name == l.Engine.Name {
						manager, le.NoManager = nil, "manager "+l.Engine.Name+" stopped answering"
					}
				}
				le.Lost = append(le.Lost, gone...)
			}
		}
		left, lerr := c.leftovers(ctx, manager, up, filters)
		if lerr == nil && len(left) == 0 {
			if len(le.Lost) == 0 && le.NoManager == "" {
				return r, nil
			}
			le.Errs = nil // what failed was on the lost engines
			return r, le
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			if lerr != nil {
				errs = append(errs, lerr)
			}
			le.Left, le.Errs = left, errs
			return r, le
		}
		if time.Since(said) >= sayEvery {
			said = time.Now()
			fmt.Fprintf(log, "swarm: %d object(s) still there after %.0f s (%s); waiting up to %.0f s\n",
				len(left), time.Since(start).Seconds(), summarize(left, 4), sweepWait.Seconds())
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// summarize lists at most n items and counts the rest.
func summarize(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:n], ", ") + fmt.Sprintf(" and %d more", len(items)-n)
}

// probe asks each engine, at once, whether it answers; it returns those
// that do (in order) and those that do not, with why.
func (c Cluster) probe(ctx context.Context, engines []Engine) ([]Engine, []Lost) {
	errs := make([]error, len(engines))
	var wg sync.WaitGroup
	for i, e := range engines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pctx, cancel := context.WithTimeoutCause(ctx, probeTimeout, fmt.Errorf("no answer in %v", probeTimeout))
			defer cancel()
			_, err := c.docker(pctx, e.Host, "version", "--format", "{{.Server.Version}}")
			if err != nil && pctx.Err() != nil {
				err = context.Cause(pctx)
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	var up []Engine
	var lost []Lost
	for i, e := range engines {
		if errs[i] != nil {
			lost = append(lost, Lost{Engine: e, Err: daemonSaid(errs[i])})
		} else {
			up = append(up, e)
		}
	}
	return up, lost
}

// daemonSaid is the first line of what a failed docker command printed,
// without the command and its exit status (docker's own error says which
// engine).
func daemonSaid(err error) string {
	msg := lines.First(err.Error())
	if i := strings.Index(msg, ": exit status "); i >= 0 {
		if j := strings.Index(msg[i+2:], ": "); j >= 0 {
			return msg[i+2+j+2:]
		}
	}
	return msg
}

// managerOf is the cluster's manager when it answers, else the first of up
// that is a manager; nil and why when none is.
func (c Cluster) managerOf(ctx context.Context, up []Engine) (*Engine, string) {
	if c.Manager.Host != "" && slices.Contains(up, c.Manager) {
		m := c.Manager
		return &m, ""
	}
	for _, e := range up {
		cctx, cancel := context.WithTimeout(ctx, probeTimeout)
		out, err := c.docker(cctx, e.Host, "info", "--format", "{{.Swarm.ControlAvailable}}")
		cancel()
		if err == nil && strings.TrimSpace(out) == "true" {
			return &e, ""
		}
	}
	if c.Manager.Host != "" {
		return nil, "manager " + c.Manager.Name + " does not answer"
	}
	return nil, "none of the engines that answer is a manager"
}

// Leftovers lists what still matches the filters anywhere in the swarm, as
// "<engine> <kind> <id>"; an engine that cannot be asked is in the error,
// and the others are still listed.
func Leftovers(ctx context.Context, c Cluster, filters ...string) ([]string, error) {
	var m *Engine
	if c.Manager.Host != "" {
		m = &c.Manager
	}
	return c.leftovers(ctx, m, c.Engines, filters)
}

// leftovers lists the swarm objects on manager (if any) and the engine
// objects on engines that match the filters.
func (c Cluster) leftovers(ctx context.Context, manager *Engine, engines []Engine, filters []string) ([]string, error) {
	var out []string
	var errs []error
	list := func(e Engine, kind string, args ...string) {
		for _, f := range filters {
			args = append(args, "--filter", f)
		}
		cctx, cancel := context.WithTimeout(ctx, callTimeout)
		defer cancel()
		s, err := c.docker(cctx, e.Host, args...)
		if err != nil {
			errs = append(errs, err)
			return
		}
		for _, id := range strings.Fields(s) {
			out = append(out, e.Name+" "+kind+" "+id)
		}
	}
	if manager != nil {
		for _, k := range [][]string{{"service", "service", "ls", "-q"}, {"config", "config", "ls", "-q"}, {"secret", "secret", "ls", "-q"}} {
			list(*manager, k[0], k[1:]...)
		}
	}
	for _, e := range engines {
		for _, k := range [][]string{{"container", "ps", "-aq"}, {"network", "network", "ls", "-q"}, {"volume", "volume", "ls", "-q"}} {
			list(e, k[0], k[1:]...)
		}
	}
	return out, errors.Join(errs...)
}
