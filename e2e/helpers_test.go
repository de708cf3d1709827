// Package e2e holds end-to-end tests against real btcd and lnd processes.
// They need the node binaries in the cache: `lnbench build` (test.sh runs it).
package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lnbench/lnbench/nodebuild"
	"github.com/lnbench/lnbench/scenario"
)

func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// binaries returns the cached node build or fails with the fix.
func binaries(t *testing.T) nodebuild.Result {
	t.Helper()
	spec, err := nodebuild.Find(filepath.Join(repoRoot(t), "images"), "lnd", scenario.DefaultNode.Version)
	if err != nil {
		t.Fatal(err)
	}
	r, err := nodebuild.Locate(nodebuild.DefaultCacheDir(), spec)
	if err != nil {
		t.Fatalf("%v (./test.sh builds them first)", err)
	}
	return r
}

// processesMentioning lists live processes whose command line contains s.
func processesMentioning(s string) []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		cmd := strings.ReplaceAll(string(data), "\x00", " ")
		if strings.Contains(cmd, s) {
			out = append(out, e.Name()+": "+cmd)
		}
	}
	return out
}
