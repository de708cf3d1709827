package runner

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLeavesReportingToTheCaller keeps the runner from importing the
// report: it writes the run's record (package record) and streams, and the
// reports are made from those alone, so `lnbench report` on a folder
// gives what `lnbench run` gave. Test files may use the report; the
// package may not.
func TestLeavesReportingToTheCaller(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	out, err := exec.Command(goCmd, "list", "-deps", "github.com/lnbench/lnbench/runner").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	const rep = "github.com/lnbench/lnbench/report"
	for _, pkg := range strings.Fields(string(out)) {
		if pkg == rep || strings.HasPrefix(pkg, rep+"/") {
			t.Errorf("runner depends on %s", pkg)
		}
	}
}
