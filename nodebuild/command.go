package nodebuild

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/lnbench/lnbench/internal/lines"
)

// command is one child process of a build (go build, go mod tidy, …).
type command struct {
	Dir  string
	Env  []string // appended to the environment
	Log  io.Writer
	Name string
	Args []string
	// Quiet holds the output back and writes it to Log only when the
	// command fails: go mod tidy reports every module it looks up (LND's
	// test-only dependencies: 16 "go: finding module … juju" lines) on
	// success too, which is noise unless the step fails.
	Quiet bool
}

// runCommand runs a build's steps; tests swap it to stand in for the go
// command.
var runCommand = run

// run runs c in its own process group. When ctx ends it kills the whole
// group: go build forks compilers and linkers that would otherwise outlive
// it (an interrupted build once left a compiler running). The error wraps
// ctx.Err() then, so callers can test errors.Is(err, context.Canceled).
func run(ctx context.Context, c command) error {
	cmd := exec.CommandContext(ctx, c.Name, c.Args...)
	cmd.Dir = c.Dir
	cmd.Env = append(os.Environ(), c.Env...)
	// held keeps the output either way: a failure's error names the first
	// compiler diagnostic in it (bisect lists it as why a revision is skipped).
	var held bytes.Buffer
	if c.Quiet || c.Log == nil {
		cmd.Stdout, cmd.Stderr = &held, &held
	} else {
		w := io.MultiWriter(c.Log, &held)
		cmd.Stdout, cmd.Stderr = w, w
	}
	killGroupOnCancel(cmd)
	// Output pipes stay open while a killed group's children exit.
	cmd.WaitDelay = 10 * time.Second
	err := cmd.Run()
	if ctx.Err() != nil {
		return fmt.Errorf("%s %s interrupted: %w", c.Name, firstArg(c.Args), ctx.Err())
	}
	if err != nil {
		if c.Quiet && c.Log != nil {
			c.Log.Write(held.Bytes())
		}
		d, _ := lines.FirstDiagnostic(held.String())
		return &CommandError{Command: c.Name + " " + strings.Join(c.Args, " "), Dir: c.Dir, Err: err, Diagnostic: d}
	}
	return nil
}

// CommandError is a build step that failed. Diagnostic is the compiler's
// first error in its output, if it printed one: what broke, where the
// command line only says what ran (bisect lists it as why it skipped a
// revision).
type CommandError struct {
	Command    string
	Dir        string
	Err        error
	Diagnostic string
}

// Error keeps the command on the first line, for callers that show one,
// and the diagnostic on the next.
func (e *CommandError) Error() string {
	s := fmt.Sprintf("%s in %s failed: %v", e.Command, e.Dir, e.Err)
	if e.Diagnostic != "" {
		s += "\n" + e.Diagnostic
	}
	return s
}

func (e *CommandError) Unwrap() error { return e.Err }

func firstArg(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[0]
}
