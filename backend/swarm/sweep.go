package swarm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/lnbench/lnbench/backend"
)

// Removed counts what a sweep removed.
type Removed struct {
	Services, Containers, Networks, Volumes, Configs, Secrets int
}

func (r Removed) String() string {
	return fmt.Sprintf("%d service(s), %d container(s), %d network(s), %d volume(s), %d config(s), %d secret(s)",
		r.Services, r.Containers, r.Networks, r.Volumes, r.Configs, r.Secrets)
}

// Down removes every stack object labelled lnbench.run=<runID> from the
// swarm (services, configs, secrets, networks, through the manager) and
// every labelled container, network and volume from each engine.
func Down(ctx context.Context, c Cluster, runID string) (Removed, error) {
	f := "label=" + backend.Label
	if runID != "" {
		f += "=" + runID
	}
	return Sweep(ctx, c, f)
}

// Sweep removes what matches every filter on the manager and on each
// engine, then waits (up to 60 s: tasks stop, overlay networks leave the
// workers once their containers are gone) until nothing matches; the
// error lists what is left.
func Sweep(ctx context.Context, c Cluster, filters ...string) (Removed, error) {
	var r Removed
	fa := func(args ...string) []string {
		for _, f := range filters {
			args = append(args, "--filter", f)
		}
		return args
	}
	var errs []error
	rm := func(host string, count *int, list []string, remove []string) {
		out, err := docker(ctx, host, fa(list...)...)
		if err != nil {
			errs = append(errs, err)
			return
		}
		ids := strings.Fields(out)
		if len(ids) == 0 {
			return
		}
		if _, err := docker(ctx, host, append(remove, ids...)...); err != nil {
			errs = append(errs, err)
			return
		}
		*count += len(ids)
	}
	m := c.Manager.Host
	rm(m, &r.Services, []string{"service", "ls", "-q"}, []string{"service", "rm"})
	deadline := time.Now().Add(60 * time.Second)
	for {
		errs = nil
		for _, e := range c.Engines {
			rm(e.Host, &r.Containers, []string{"ps", "-aq"}, []string{"rm", "-f", "-v"})
		}
		rm(m, &r.Configs, []string{"config", "ls", "-q"}, []string{"config", "rm"})
		rm(m, &r.Secrets, []string{"secret", "ls", "-q"}, []string{"secret", "rm"})
		for _, e := range c.Engines {
			rm(e.Host, &r.Networks, []string{"network", "ls", "-q"}, []string{"network", "rm"})
			rm(e.Host, &r.Volumes, []string{"volume", "ls", "-q"}, []string{"volume", "rm", "-f"})
		}
		left, lerr := Leftovers(ctx, c, filters...)
		if lerr == nil && len(left) == 0 {
			return r, nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			if lerr != nil {
				errs = append(errs, lerr)
			}
			if len(left) > 0 {
				errs = append(errs, fmt.Errorf("left: %s", strings.Join(left, ", ")))
			}
			return r, errors.Join(errs...)
		}
		time.Sleep(time.Second)
	}
}

// Leftovers lists what still matches the filters anywhere in the swarm, as
// "<engine> <kind> <id>".
func Leftovers(ctx context.Context, c Cluster, filters ...string) ([]string, error) {
	var out []string
	list := func(host, name string, kind string, args ...string) error {
		for _, f := range filters {
			args = append(args, "--filter", f)
		}
		s, err := docker(ctx, host, args...)
		if err != nil {
			return err
		}
		for _, id := range strings.Fields(s) {
			out = append(out, name+" "+kind+" "+id)
		}
		return nil
	}
	m := c.Manager
	for _, k := range [][]string{{"service", "service", "ls", "-q"}, {"config", "config", "ls", "-q"}, {"secret", "secret", "ls", "-q"}} {
		if err := list(m.Host, m.Name, k[0], k[1:]...); err != nil {
			return out, err
		}
	}
	for _, e := range c.Engines {
		for _, k := range [][]string{{"container", "ps", "-aq"}, {"network", "network", "ls", "-q"}, {"volume", "volume", "ls", "-q"}} {
			if err := list(e.Host, e.Name, k[0], k[1:]...); err != nil {
				return out, err
			}
		}
	}
	return out, nil
}
