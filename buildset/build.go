package buildset

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/lnbench/lnbench/imagebuild"
	"github.com/lnbench/lnbench/internal/runs"
	"github.com/lnbench/lnbench/nodebuild"
)

// KeepOldBuildsEnv, set to 1, keeps the older builds of a source tree.
const KeepOldBuildsEnv = "LNBENCH_KEEP_OLD_BUILDS"

// EnsureBuild is nodebuild.Ensure, and for a source tree the removal of
// the older builds of that tree and flavour (each edit of a tree leaves a
// ~220 MB LND build): only the build the tree holds now stays, unless
// LNBENCH_KEEP_OLD_BUILDS=1 or a live run may still use an older one.
// What it removed or kept is said on log.
func EnsureBuild(ctx context.Context, cache string, spec nodebuild.Spec, log io.Writer) (nodebuild.Result, error) {
	r, err := nodebuild.Ensure(ctx, cache, spec, log)
	if err == nil && spec.IsSource() && os.Getenv(KeepOldBuildsEnv) != "1" {
		pruneOlderBuilds(ctx, cache, spec.SourceDir, r.Manifest.Key, runs.Root(), os.Getpid(), log)
	}
	return r, err
}

// pruneOlderBuilds removes the builds that key's build of tree supersedes
// but those a live run under runsRoot (other than the harness self) may use,
// saying what it removed and kept. A failure is said, not returned: the
// build the caller asked for is there.
func pruneOlderBuilds(ctx context.Context, cache, tree, key, runsRoot string, self int, log io.Writer) {
	inUse, kept := LiveRunUse(runsRoot, self)
	removed, _, err := nodebuild.PruneSuperseded(cache, key, inUse)
	for _, e := range removed {
		fmt.Fprintf(log, "removed an older build of %s: %s (%s, built %s ago); %s=1 keeps them\n",
			tree, e.Manifest.Key, Megabytes(e.Size), Age(builtOrUsed(e)), KeepOldBuildsEnv)
		if ierr := RemoveImagesOf(ctx, log, e.Manifest.Key); ierr != nil {
			fmt.Fprintf(log, "its images stay: %v\n", ierr)
		}
	}
	for _, k := range *kept {
		fmt.Fprintf(log, "kept an older build of %s: %s: %s\n", tree, k.Entry.Manifest.Key, k.Why)
	}
	if err != nil {
		fmt.Fprintf(log, "removing older builds of %s: %v\n", tree, err)
	}
}

func builtOrUsed(e nodebuild.Entry) time.Time {
	if !e.Manifest.BuiltAt.IsZero() {
		return e.Manifest.BuiltAt
	}
	return e.LastUsed
}

// RemoveImagesOf removes the node images of the build with key, saying
// which on log: a removed build leaves no image behind.
func RemoveImagesOf(ctx context.Context, log io.Writer, key string) error {
	tags, err := imagebuild.RemoveImagesOf(ctx, key)
	if err == nil && len(tags) > 0 {
		fmt.Fprintf(log, "removed its images %s\n", strings.Join(tags, ", "))
	}
	return err
}

// Kept is a build a live run kept from removal, and why.
type Kept struct {
	Entry nodebuild.Entry
	Why   string
}

// LiveRunUse says which builds a live run (another lnbench harness whose
// work folder is under root) may be using: those it could have located,
// i.e. used since an hour before it started (its builds are located
// before its id is taken, and a build of several specs takes minutes).
// The harness self is not a live run of its own. kept collects what it
// protected, with why.
func LiveRunUse(root string, self int) (inUse func(nodebuild.Entry) bool, kept *[]Kept) {
	kept = &[]Kept{}
	live, _ := runs.Local(root)
	return func(e nodebuild.Entry) bool {
		for _, r := range live {
			if !r.Alive || r.PID == self || r.Started.IsZero() {
				continue
			}
			if e.LastUsed.After(r.Started.Add(-time.Hour)) {
				*kept = append(*kept, Kept{e, fmt.Sprintf("run %s (pid %d, still running) may be using it; `lnbench build --prune` removes it later", r.ID, r.PID)})
				return true
			}
		}
		return false
	}, kept
}

// Megabytes is a size in bytes as the build lines print it (decimal MB).
func Megabytes(n int64) string { return fmt.Sprintf("%.0f MB", float64(n)/1e6) }

// Age is how long ago t was, in the largest unit that reads well: minutes
// under an hour, hours under two days, days beyond.
func Age(t time.Time) string {
	d := time.Since(t)
	switch {
	case d < time.Hour:
		return fmt.Sprintf("%.0fm", d.Minutes())
	case d < 48*time.Hour:
		return fmt.Sprintf("%.0fh", d.Hours())
	default:
		return fmt.Sprintf("%.0fd", d.Hours()/24)
	}
}
