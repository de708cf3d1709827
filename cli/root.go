// Package cli is lnbench's command line: thin commands over the library
// packages, testable through Run(stdout, stderr, args).
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sync/atomic"
	"syscall"

	"github.com/spf13/cobra"
)

// Main runs the CLI and returns the process exit code: 130 after SIGINT,
// 143 after SIGTERM and 141 once its output's reader is gone (the shell's
// 128+signal), whatever child was running when it came and however it
// failed. A broken stdout or stderr (`lnbench run | head` once head has
// exited) would otherwise kill the harness by SIGPIPE at its next line,
// leaving what it started. SIGPIPE itself tells nothing: once caught it
// comes from every descriptor, so a node's closed socket would read as the
// reader gone. It is caught and dropped (caught, unlike ignored, is not
// inherited by the nodes lnbench starts), and the broken pipe is seen on
// stdout's and stderr's own writes instead.
func Main(stdout, stderr io.Writer, args []string) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got atomic.Value
	dropped := make(chan os.Signal, 1)
	signal.Notify(dropped, syscall.SIGPIPE)
	defer signal.Stop(dropped)
	stdout, stderr = watchPipe(stdout, got.Store, cancel), watchPipe(stderr, got.Store, cancel)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() {
		select {
		case s := <-sigs:
			got.Store(s)
			cancel()
		case <-ctx.Done():
		}
	}()
	err := Run(ctx, stdout, stderr, args)
	if s, ok := got.Load().(os.Signal); ok {
		msg := "interrupted"
		if err != nil && !errors.Is(err, context.Canceled) {
			msg += " (" + err.Error() + ")"
		}
		fmt.Fprintf(stderr, "lnbench: %s by %v; what was started is torn down, results already measured are kept\n", msg, s)
		return ExitCode(s)
	}
	var code exitCode
	if errors.As(err, &code) {
		return int(code) // the command printed its own error (bitcoin-cli)
	}
	if err != nil {
		fmt.Fprintf(stderr, "lnbench: %v\n", err)
		if errors.Is(err, context.Canceled) {
			return 130
		}
		return 1
	}
	return 0
}

// ExitCode is the shell's convention for a process ended by a signal.
func ExitCode(s os.Signal) int {
	if n, ok := s.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return 128 + int(syscall.SIGINT)
}

// Run executes one command line.
func Run(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	root := &cobra.Command{
		Use:           "lnbench",
		Short:         "Reproducible benchmarks of Lightning nodes on a private simnet chain",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetArgs(args)
	root.AddCommand(buildCmd(stdout, stderr), runCmd(stdout, stderr), imagesCmd(stdout, stderr), downCmd(stdout, stderr), psCmd(stdout, stderr), flamegraphCmd(stdout, stderr), reportCmd(stdout, stderr), compareCmd(stdout, stderr), samplerCmd(stdout, stderr), soakCmd(stdout, stderr), calibrateCmd(stdout, stderr), bisectCmd(stdout, stderr), historyCmd(stdout, stderr), snapshotsCmd(stdout, stderr), paramsCmd(stdout), upCmd(stdout, stderr), pgoCmd(stdout, stderr), netdelayCmd(stderr), bitcoinCLICmd(stdout, stderr), clnPluginCmd(stdout), perfserveCmd(stderr))
	return root.ExecuteContext(ctx)
}

// findImages locates the repo's images/ folder (node build modules) from
// the working directory upwards.
func findImages(flag string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	dir, _ := os.Getwd()
	for {
		cand := filepath.Join(dir, "images")
		if st, err := os.Stat(filepath.Join(cand, "lnd")); err == nil && st.IsDir() {
			return cand, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("cannot find images/ (the node build modules): run from the lnbench repository or pass --images DIR")
		}
		dir = parent
	}
}
