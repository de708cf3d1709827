package runner

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"

	"github.com/lnbench/lnbench/flamegraph"
)

// Harness profile files, in the run's artifacts folder.
const (
	HarnessProfileName    = "harness.cpu.pprof"
	HarnessProfileTopName = "harness-profile.txt"
	harnessTopN           = 20
)

// startHarnessProfile starts this process's CPU profile into dir. stop ends
// it and writes the top functions beside it; it returns the report's note.
func startHarnessProfile(dir string) (stop func() (string, error), err error) {
	path := filepath.Join(dir, HarnessProfileName)
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("harness profile: %v", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("harness profile: %v", err)
	}
	return func() (string, error) {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			return "", fmt.Errorf("harness profile: %v", err)
		}
		top, err := os.Create(filepath.Join(dir, HarnessProfileTopName))
		if err != nil {
			return "", fmt.Errorf("harness profile: %v", err)
		}
		defer top.Close()
		if err := WriteProfileTop(top, path, harnessTopN); err != nil {
			return "", fmt.Errorf("harness profile: %v", err)
		}
		return fmt.Sprintf("%s (top %d functions in %s; go tool pprof -top %s)",
			HarnessProfileName, harnessTopN, HarnessProfileTopName, HarnessProfileName), nil
	}, nil
}

// WriteProfileTop writes the n functions of the CPU profile at path with
// the most self samples, then the n with the most inclusive samples, as
// `go tool pprof -top` would (flat, then cum), without the go command.
func WriteProfileTop(w io.Writer, path string, n int) error {
	folded, err := flamegraph.ReadFile(path)
	if err != nil {
		return err
	}
	total := folded.Total()
	fmt.Fprintf(w, "%s: %d samples\n\nTop %d by self samples (flat):\n", filepath.Base(path), total, n)
	for _, s := range flamegraph.TopSelf(folded, n) {
		fmt.Fprintf(w, "%8d %6.2f%%  %s\n", s.Samples, s.Percent, s.Name)
	}
	fmt.Fprintf(w, "\nTop %d by inclusive samples (cum):\n", n)
	for _, s := range flamegraph.TopInclusive(folded, n) {
		fmt.Fprintf(w, "%8d %6.2f%%  %s\n", s.Samples, s.Percent, s.Name)
	}
	return nil
}
