package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/spf13/cobra"

	"github.com/lnbench/lnbench/perfprof"
)

// perfserveCmd serves perf profiles of a C node's process tree (lightningd
// and what it forks) at Go's pprof path, so the sampler profiles Core
// Lightning as it profiles LND; it runs beside lightningd (in its
// container, later) with the rights perf needs.
func perfserveCmd(stderr io.Writer) *cobra.Command {
	var listen, pidfile, comm string
	var pid int
	var rec perfprof.Recorder
	var linger time.Duration
	cmd := &cobra.Command{
		Use:   "perfserve --listen 127.0.0.1:6060 (--pid PID | --pidfile FILE | --comm lightningd)",
		Short: "Serve perf CPU profiles of a process and its descendants as GET /debug/pprof/profile?seconds=N",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var target func() (int, error)
			var what string
			switch {
			case pid > 0 && pidfile == "" && comm == "":
				target, what = perfprof.PID(pid), fmt.Sprintf("PID %d", pid)
				if _, err := target(); err != nil {
					return fmt.Errorf("--pid: %v", err)
				}
			case pid == 0 && pidfile != "" && comm == "":
				target, what = perfprof.Pidfile(pidfile), "the PID in "+pidfile
			case pid == 0 && pidfile == "" && comm != "":
				target, what = perfprof.Comm("/proc", comm), "the process named "+comm
			default:
				return errors.New("name the process with exactly one of --pid, --pidfile or --comm")
			}
			if err := perfprof.CheckCallGraph(rec.CallGraph); err != nil {
				return fmt.Errorf("--call-graph: %v", err)
			}
			if _, err := target(); err != nil {
				fmt.Fprintf(stderr, "perfserve: %v (looked up again at each request)\n", err)
			}
			ln, err := net.Listen("tcp", listen)
			if err != nil {
				return fmt.Errorf("--listen %s: %v", listen, err)
			}
			h := &perfprof.Handler{Target: target, Profiler: &perfprof.Profiler{Recorder: rec, Linger: linger}, Log: stderr}
			defer h.Close()
			srv := &http.Server{Handler: h.Mux()}
			go func() {
				<-cmd.Context().Done()
				sctx, c := context.WithTimeout(context.Background(), 5*time.Second)
				defer c()
				srv.Shutdown(sctx)
			}()
			fmt.Fprintf(stderr, "perfserve: profiling %s and its descendants at http://%s/debug/pprof/profile?seconds=N\n", what, ln.Addr())
			if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				return err
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&listen, "listen", "127.0.0.1:6060", "address to serve on")
	f.IntVar(&pid, "pid", 0, "profile this process and its descendants")
	f.StringVar(&pidfile, "pidfile", "", "read the PID from this file at each request (e.g. <lightning-dir>/lightningd-regtest.pid)")
	f.StringVar(&comm, "comm", "", "find the process by name at each request (the root of the tree of that name)")
	f.StringVar(&rec.CallGraph, "call-graph", "auto", "stack unwinding: fp (frame pointers), dwarf, or auto (fp if the binary was built keeping frame pointers)")
	f.IntVar(&rec.Freq, "freq", 99, "samples per second of CPU time per thread")
	f.StringVar(&rec.Perf, "perf", "perf", "the perf command")
	f.DurationVar(&linger, "linger", 5*time.Second, "keep perf running this long after a profile, so the next one starts where it ended")
	f.BoolVar(&rec.Inline, "inline", false, "name inlined functions too (perf script runs addr2line: slow on large binaries)")
	return cmd
}
