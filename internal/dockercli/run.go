// Package dockercli runs the docker command line where the command itself
// is what is asked (compose up, stack deploy, exec, run) and copies logs.
package dockercli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/lnbench/lnbench/internal/lines"
)

// Run runs name with args, extra environment variables (nil: none) and
// stdin (nil: none), and returns its trimmed stdout; the error names the
// command and carries the last lines of stderr (else stdout), with the
// untrimmed stdout.
func Run(ctx context.Context, env []string, stdin io.Reader, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.Stdin = stdin
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = strings.TrimSpace(out.String())
		}
		return out.String(), failed(name, args, err, msg)
	}
	return strings.TrimSpace(out.String()), nil
}

// Pipe runs docker with args, stdin and stdout as given, untouched (a
// database dump in or out of a container); the error is Run's.
func Pipe(ctx context.Context, stdin io.Reader, stdout io.Writer, args ...string) error {
	cmd := exec.CommandContext(ctx, "docker", args...)
	var errb bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, &errb
	if err := cmd.Run(); err != nil {
		return failed("docker", args, err, strings.TrimSpace(errb.String()))
	}
	return nil
}

func failed(name string, args []string, err error, msg string) error {
	return fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, lines.Last(msg, 6))
}

// LogsTo writes a container's whole log (stdout and stderr) to path;
// global are the CLI's flags before `logs` (e.g. -H host).
func LogsTo(ctx context.Context, global []string, id, path string) error {
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "docker", append(append(append([]string(nil), global...), "logs"), id)...)
	cmd.Stdout, cmd.Stderr = out, out
	rerr := cmd.Run()
	if cerr := out.Close(); rerr == nil {
		rerr = cerr
	}
	return rerr
}
