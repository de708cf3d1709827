package cli

import (
	"os"
	"testing"

	"github.com/lnbench/lnbench/internal/runs"
)

// The tests list no real Storage=tmpfs folders of runs on this machine.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "cli-tmpfs-")
	if err != nil {
		panic(err)
	}
	runs.TmpfsRoot = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
