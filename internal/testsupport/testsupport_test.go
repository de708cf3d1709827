package testsupport

import (
	"fmt"
	"path/filepath"
	"testing"
)

// recorder stands in for a test: it records a skip or a failure instead of
// ending the goroutine.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Skip(args ...any)          { r.skipped = fmt.Sprint(args...) }
func (r *recorder) Fatalf(f string, a ...any) { r.failed = fmt.Sprintf(f, a...) }

func TestMissingPrerequisiteSkipsOutsideCIAndFailsInCI(t *testing.T) {
	for _, tc := range []struct {
		ci                string
		ok                bool
		skipped, failedIn bool
	}{
		{ci: "", ok: true},
		{ci: "true", ok: true},
		{ci: "", ok: false, skipped: true},
		{ci: "false", ok: false, skipped: true},
		{ci: "true", ok: false, failedIn: true},
		{ci: "1", ok: false, failedIn: true},
	} {
		t.Setenv("CI", tc.ci)
		r := &recorder{}
		RequireOrSkip(r, tc.ok, "needs a thing")
		if (r.skipped != "") != tc.skipped || (r.failed != "") != tc.failedIn {
			t.Errorf("CI=%q ok=%v: skipped %q, failed %q", tc.ci, tc.ok, r.skipped, r.failed)
		}
		if r.failed != "" && r.failed != "missing prerequisite (CI=true turns this skip into a failure): needs a thing" {
			t.Errorf("failure message %q", r.failed)
		}
	}
}

func TestRequireToolsNamesTheMissingOnes(t *testing.T) {
	t.Setenv("CI", "")
	r := &recorder{}
	RequireTools(r, "go", "lnbench-no-such-tool-a", "lnbench-no-such-tool-b")
	if r.skipped != "needs lnbench-no-such-tool-a, lnbench-no-such-tool-b (not on PATH)" {
		t.Errorf("skip reason %q", r.skipped)
	}
}

func TestCLNSourceIsBesideTheRepository(t *testing.T) {
	t.Setenv("CI", "")
	t.Setenv("LNBENCH_CLN_SRC", "")
	r := &recorder{}
	root := t.TempDir()
	got := CLNSource(r, root)
	want := filepath.Join(root, "..", "shared", "cln", CLNSourceName)
	if got != want || r.skipped == "" {
		t.Errorf("CLNSource = %q (skipped %q), want %q and a skip", got, r.skipped, want)
	}
	t.Setenv("LNBENCH_CLN_SRC", "/elsewhere/cln.tar.xz")
	if got := CLNSource(&recorder{}, root); got != "/elsewhere/cln.tar.xz" {
		t.Errorf("with LNBENCH_CLN_SRC: %q", got)
	}
}
