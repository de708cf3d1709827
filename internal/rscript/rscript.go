// Package rscript runs an R plot script the way lnbench's exporters do:
// Rscript --vanilla in the script's folder, bounded in time, its output's
// last line in the error.
package rscript

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/lnbench/lnbench/internal/lines"
)

// ErrNoR means Rscript is not on PATH: the plot is skipped, nothing else.
//
//lint:ignore ST1005 Rscript is the command's name
var ErrNoR = errors.New("Rscript not found: no plot (install r-base-core r-cran-ggplot2)")

// Timeout bounds a plot: ggplot2 on a few thousand points takes seconds.
const Timeout = 2 * time.Minute

// Run removes plot (so none is left stale) and runs script in dir.
func Run(ctx context.Context, dir, script, plot string) error {
	rscript, err := exec.LookPath("Rscript")
	if err != nil {
		return ErrNoR
	}
	_ = os.Remove(filepath.Join(dir, plot))
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, rscript, "--vanilla", script)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		// R ends with "Execution halted"; the line before says why.
		return fmt.Errorf("running %s with Rscript: %v: %s", script, err, strings.ReplaceAll(lines.Last(string(out), 2), "\n", " / "))
	}
	return nil
}
