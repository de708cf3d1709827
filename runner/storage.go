package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/lnbench/lnbench/internal/runs"
	"github.com/lnbench/lnbench/record"
	"github.com/lnbench/lnbench/scenario"
	"github.com/lnbench/lnbench/usage"
	"github.com/lnbench/lnbench/usage/collect"
)

// workRoot is where a network's data dirs go for a storage kind. tmpfs:
// runs.TmpfsRoot, a RAM filesystem on the host, bind-mounted into
// containers as the disk folder would be, so the harness still reads
// credentials from the host side.
func workRoot(opts Options, storage string) string {
	if storage == scenario.StorageTmpfs {
		return runs.TmpfsRoot
	}
	return opts.WorkRoot
}

// usesTmpfs tells whether a network of the run keeps its data dirs on tmpfs.
func usesTmpfs(plans []networkPlan) bool {
	for _, p := range plans {
		if len(p.cases) > 0 && p.cases[0].c.Storage() == scenario.StorageTmpfs {
			return true
		}
	}
	return false
}

// probeStorage measures the sync ceiling of the filesystem that will hold
// the network's data dirs, once per storage kind per run.
func probeStorage(ctx context.Context, opts Options, storage, workDir string, rec *record.Manifest) {
	if opts.DiskProbe <= 0 || slices.ContainsFunc(rec.DiskProbes, func(p usage.DiskProbe) bool { return p.Storage == storage }) {
		return
	}
	p, err := collect.ProbeDisk(ctx, workDir, storage, opts.DiskProbe)
	if err != nil {
		addNote(rec, fmt.Sprintf("disk probe (%s, %s): %v", storage, workDir, err))
		return
	}
	// The probe ran in the network's folder; the path recorded is its root.
	p.Path = filepath.Dir(filepath.Dir(workDir))
	rec.DiskProbes = append(rec.DiskProbes, p)
	fmt.Fprintf(opts.Log, "disk probe (%s, %s): %.0f syncs/s\n", storage, p.Filesystem, p.SyncsPerSecond)
	_ = os.Remove(workDir) // created by the probe; the backend makes it again
}

var notesMu sync.Mutex

// addNote records one line in the manifest's warnings, once. The
// networks' samplers note from their own goroutines.
func addNote(rec *record.Manifest, line string) {
	notesMu.Lock()
	defer notesMu.Unlock()
	if !slices.Contains(rec.Warnings, line) {
		rec.Warnings = append(rec.Warnings, line)
	}
}
