package report

import (
	"os/exec"
	"strings"
	"testing"
)

// TestReadsArtifactsOnly keeps the reporting package, which `lnbench
// report` and `compare` call, free of the harness that produces runs.
func TestReadsArtifactsOnly(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	out, err := exec.Command(goCmd, "list", "-deps", "github.com/lnbench/lnbench/report").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	harness := []string{"backend", "network", "load", "node", "runner", "sampler", "chain", "compose", "nodebuild", "imagebuild"}
	for _, pkg := range strings.Fields(string(out)) {
		for _, h := range harness {
			if root := "github.com/lnbench/lnbench/" + h; pkg == root || strings.HasPrefix(pkg, root+"/") {
				t.Errorf("report depends on %s: it must read artifacts folders, not know how they are made", pkg)
			}
		}
	}
}
