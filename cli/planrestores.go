package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/lnbench/lnbench/backend/driver"
	"github.com/lnbench/lnbench/buildset"
	"github.com/lnbench/lnbench/runner"
	"github.com/lnbench/lnbench/scenario"
)

// restoredEstimate is the plan's estimate when networks restore: each
// network the cache holds a snapshot of restored, each other one built once
// to make its snapshot; the plan line says how many of each.
func restoredEstimate(s scenario.Scenario, bins buildset.Set, snaps *runner.SnapshotOptions, be driver.Driver, networks int, warn string) (time.Duration, string, error) {
	d, cached, restored, err := runner.EstimateRestored(runner.Options{Scenario: s, BackendName: be.Name(), Builds: bins.ForReport(), Snapshots: snaps}, be.Caps().Overhead)
	if err != nil {
		return 0, warn, err
	}
	line := fmt.Sprintf("snapshots: %d of %d network(s) restored, %d of them from the cache; each other one is built once to make its snapshot", restored, networks, cached)
	return d, joinLines(warn, line), nil
}

// plannedRestores is restoredEstimate for --plan, which builds nothing:
// a snapshot's key names its builds, so only builds the cache already
// holds can find one. With a build missing, the estimate stays a build's
// and the plan line says why.
func plannedRestores(ctx context.Context, s scenario.Scenario, f runFlags, be driver.Driver, networks int, est time.Duration, warn string) (time.Duration, string, error) {
	imagesDir, err := findImages(f.images)
	if err != nil {
		return est, joinLines(warn, "snapshots: estimated as built: "+err.Error()), nil
	}
	bins, missing, err := buildset.Cached(ctx, imagesDir, f.cache, &s)
	if err != nil {
		return est, warn, err
	}
	if len(missing) > 0 {
		return est, joinLines(warn, fmt.Sprintf("snapshots: estimated as built: the cache has no build of %s yet, so no snapshot of its networks", strings.Join(missing, ", "))), nil
	}
	return restoredEstimate(s, bins, snapshotOptions(f, bins), be, networks, warn)
}

// snapshotOptions are the runner's snapshot settings for a run that restores.
func snapshotOptions(f runFlags, bins buildset.Set) *runner.SnapshotOptions {
	return &runner.SnapshotOptions{Cache: snapshotCache(f.cache, f.snapshotDir), Chain: bins.Chain(), Specs: f.snapshotsFor}
}

func joinLines(a, b string) string { return strings.TrimPrefix(a+"\n"+b, "\n") }
