package report

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/lnbench/lnbench/internal/lines"
)

// RScriptName is the plot script written into the artifacts folder. It
// reads summary.csv and measurements.csv there, so the CSV exporters must
// run first; anyone can rerun it with `Rscript plots.R DIR`.
const RScriptName = "plots.R"

//go:embed plots.R
var plotsR []byte

// ErrNoR means Rscript is not on PATH: the plots are skipped, nothing else.
//
//lint:ignore ST1005 Rscript is the command's name
var ErrNoR = errors.New("Rscript not found: PNG plots skipped (install r-base-core r-cran-ggplot2 to get them)")

// rTimeout bounds a plot run: ggplot2 on a few thousand points takes seconds.
const rTimeout = 2 * time.Minute

// WriteRScript writes plots.R into dir.
func WriteRScript(dir string) error {
	return os.WriteFile(filepath.Join(dir, RScriptName), plotsR, 0o644)
}

// RunR runs plots.R in dir and returns the PNGs it drew. Earlier plots are
// removed first so none is left stale. Without Rscript it returns ErrNoR.
func RunR(ctx context.Context, dir string) ([]string, error) {
	rscript, err := exec.LookPath("Rscript")
	if err != nil {
		return nil, ErrNoR
	}
	for _, old := range PlotFiles(dir) {
		_ = os.Remove(filepath.Join(dir, old))
	}
	ctx, cancel := context.WithTimeout(ctx, rTimeout)
	defer cancel()
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, rscript, "--vanilla", RScriptName, abs)
	cmd.Dir = abs
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		//lint:ignore ST1005 Rscript is the command's name
		return PlotFiles(dir), fmt.Errorf("Rscript %s: %v: %s", RScriptName, err, strings.TrimSpace(lines.Last(strings.TrimSpace(out.String()), 1)))
	}
	return PlotFiles(dir), nil
}

// PlotFiles lists the plot PNGs in dir, sorted.
func PlotFiles(dir string) []string {
	m, _ := filepath.Glob(filepath.Join(dir, "plot-*.png"))
	out := make([]string, 0, len(m))
	for _, p := range m {
		out = append(out, filepath.Base(p))
	}
	sort.Strings(out)
	return out
}
