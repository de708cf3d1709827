package local

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStartProcEnv: a node's environment (a footprint's GOGC) reaches the
// process on top of the harness's own.
func TestStartProcEnv(t *testing.T) {
	t.Setenv("LNBENCH_TEST_INHERITED", "yes")
	log := filepath.Join(t.TempDir(), "out.log")
	p, err := startProc("envtest", "/bin/sh", []string{"-c", `echo "GOGC=$GOGC inherited=$LNBENCH_TEST_INHERITED"`}, log, "GOGC=50")
	if err != nil {
		t.Fatal(err)
	}
	<-p.done
	out, _ := os.ReadFile(log)
	if got := strings.TrimSpace(string(out)); got != "GOGC=50 inherited=yes" {
		t.Errorf("child saw %q", got)
	}
}
