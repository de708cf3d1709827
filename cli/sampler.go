package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/lnbench/lnbench/sampler"
)

// samplerCmd runs inside the sampler sidecar (and behind sample-loop.sh):
// it profiles actors' pprof endpoints and stores the windows.
func samplerCmd(stdout, stderr io.Writer) *cobra.Command {
	var targets []string
	var out, mode, listen, origin string
	var every, window, slice time.Duration
	var stagger bool
	cmd := &cobra.Command{
		Use:   "sampler --target alice=http://alice:6060 [--target …] --out DIR",
		Short: "Profile nodes' pprof endpoints into <out>/<Actor>_traces/ (the sampling sidecar; also behind sample-loop.sh)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var ts []sampler.Target
			for _, t := range targets {
				actor, u, ok := strings.Cut(t, "=")
				if !ok || actor == "" || !strings.HasPrefix(u, "http") {
					return fmt.Errorf("--target %q: use actor=http://host:port", t)
				}
				ts = append(ts, sampler.Target{Actor: actor, URL: u})
			}
			if len(ts) == 0 {
				return errors.New("--target: name at least one actor=http://host:port")
			}
			o := time.Now()
			if origin != "" {
				var err error
				if o, err = time.Parse(time.RFC3339Nano, origin); err != nil {
					return fmt.Errorf("--origin %q: use RFC 3339 time, e.g. 2026-11-22T04:00:00Z", origin)
				}
			}
			sess, err := sampler.Start(sampler.Config{Targets: ts, Mode: mode, Every: every, Window: window, Slice: slice,
				Stagger: stagger, Store: &sampler.Store{Out: out, Origin: o}, Log: stderr})
			if err != nil {
				return err
			}
			defer sess.Stop()
			fmt.Fprintf(stderr, "sampler: %s mode, %d actor(s), writing to %s\n", mode, len(ts), out)
			ctx := cmd.Context()
			if listen == "" {
				<-ctx.Done()
				return nil
			}
			ln, err := net.Listen("tcp", listen)
			if err != nil {
				return fmt.Errorf("--listen %s: %v", listen, err)
			}
			srv := &http.Server{Handler: sampler.Handler(sess)}
			go func() {
				<-ctx.Done()
				sctx, c := context.WithTimeout(context.Background(), 5*time.Second)
				defer c()
				srv.Shutdown(sctx)
			}()
			if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				return err
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&targets, "target", nil, "actor=http://host:port of a pprof endpoint (repeatable)")
	f.StringVar(&out, "out", ".", "folder receiving <Actor>_traces/ and traces.jsonl")
	f.StringVar(&mode, "mode", "periodic", "periodic (window every period) or iteration (windows cut on request)")
	f.DurationVar(&every, "every", 300*time.Second, "periodic: time between window starts")
	f.DurationVar(&window, "window", 60*time.Second, "periodic: window length")
	f.DurationVar(&slice, "slice", time.Second, "iteration: profile slice length (window resolution)")
	f.BoolVar(&stagger, "stagger", false, "periodic: sample actors in turn rather than together")
	f.StringVar(&listen, "listen", "", "serve the control API on this address (the sidecar)")
	f.StringVar(&origin, "origin", "", "run start (RFC 3339) that window names count from; default now")
	return cmd
}
