// Package testsupport gates tests on what the machine has. Outside CI a
// missing prerequisite skips the test with the reason; in CI (CI=true) it
// fails it, so a CI machine without what CI is meant to have shows red
// instead of a quiet skip. Every e2e prerequisite check goes through
// RequireOrSkip.
package testsupport

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// InCI reports whether the CI switch is on: CI=true (or 1), as CI sets it.
func InCI() bool {
	on, _ := strconv.ParseBool(os.Getenv("CI"))
	return on
}

// RequireOrSkip does nothing when ok; otherwise it skips the test with why,
// or, in CI, fails it with why.
func RequireOrSkip(t testing.TB, ok bool, why string) {
	t.Helper()
	if ok {
		return
	}
	if InCI() {
		t.Fatalf("missing prerequisite (CI=true turns this skip into a failure): %s", why)
		return
	}
	t.Skip(why)
}

// SlowTier skips unless LNBENCH_SLOW=1: the slow tier (many builds, long
// runs) is opt-in with its own README command and not part of CI, so its
// skip is deliberate, not a missing prerequisite. With RequireOrSkip, the
// only way an e2e test skips (rules_test.go).
func SlowTier(t testing.TB) {
	t.Helper()
	if os.Getenv("LNBENCH_SLOW") != "1" {
		t.Skip("slow tier: set LNBENCH_SLOW=1 (README: the slow tier)")
	}
}

// RequireRoot needs euid 0; why says what the test does with it.
func RequireRoot(t testing.TB, why string) {
	t.Helper()
	RequireOrSkip(t, os.Geteuid() == 0, "needs root: "+why)
}

// RequireTools needs every command on PATH.
func RequireTools(t testing.TB, tools ...string) {
	t.Helper()
	var missing []string
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	RequireOrSkip(t, len(missing) == 0, "needs "+strings.Join(missing, ", ")+" (not on PATH)")
}

// RequireDocker needs a Docker engine that answers `docker info` within 20 s.
func RequireDocker(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "docker", "info", "--format", "{{.ServerVersion}}").CombinedOutput()
	why := ""
	if err != nil {
		why = "needs a Docker engine: `docker info` failed: " + err.Error() + ": " + strings.TrimSpace(string(out))
	}
	RequireOrSkip(t, err == nil, why)
}

// RequireFile needs path to exist; why says what it is and how to get it.
func RequireFile(t testing.TB, path, why string) {
	t.Helper()
	_, err := os.Stat(path)
	RequireOrSkip(t, err == nil, "needs "+path+": "+why)
}

// CLNSourceName is the Core Lightning release tarball the CLN tests build
// from, in shared/cln beside the repository (CI clones it there).
const CLNSourceName = "lightning-v26.06.6-src.tar.xz"

// CLNSource returns the CLN source tarball's path, ../shared/cln/<name>
// from the repository root, or $LNBENCH_CLN_SRC when set (a worktree that
// has no shared/ beside it).
func CLNSource(t testing.TB, repoRoot string) string {
	t.Helper()
	path := os.Getenv("LNBENCH_CLN_SRC")
	if path == "" {
		path = filepath.Join(repoRoot, "..", "shared", "cln", CLNSourceName)
	}
	RequireFile(t, path, "the Core Lightning source tarball (shared/cln beside the repository, or set LNBENCH_CLN_SRC)")
	return path
}
