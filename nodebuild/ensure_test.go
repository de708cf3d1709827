//go:build unix

package nodebuild

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// fakeGo puts a `go` on PATH that answers `go env GOVERSION` and, for
// `go build`, fills GOTMPDIR and starts the grandchild g like a compiler.
func fakeGo(t *testing.T, g grandchild) {
	bin := t.TempDir()
	script := `#!/bin/sh
case "$1" in
env) echo go1.99.0 ;;
build)
  dd if=/dev/zero of="$GOTMPDIR/work.a" bs=1024 count=64 2>/dev/null
  ` + g.shell() + ` ;;
*) exit 2 ;;
esac
`
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
}

func TestInterruptedEnsureLeavesNothing(t *testing.T) {
	g := newGrandchild(t)
	fakeGo(t, g)
	cache := t.TempDir()
	spec := releaseModule(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := Ensure(ctx, cache, spec, nil)
		done <- err
	}()
	pid, held := g.started(t)
	work, _ := filepath.Glob(filepath.Join(cache, "bin", ".build-*", "gotmp", "work.a"))
	if len(work) != 1 {
		t.Fatalf("GOTMPDIR is not inside the build's work folder: %v", work)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v must wrap context.Canceled", err)
	}
	g.dies(t, pid, held)
	left, _ := os.ReadDir(filepath.Join(cache, "bin"))
	if len(left) != 0 {
		t.Fatalf("an interrupted build left %v", left)
	}
}
