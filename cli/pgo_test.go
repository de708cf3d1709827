package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// PGO flags are refused in one line before anything is built or run.
func TestPGOBadInputRefused(t *testing.T) {
	dir := t.TempDir()
	profile := filepath.Join(dir, "cpu.pgo")
	if err := os.WriteFile(profile, []byte("not a profile"), 0o644); err != nil {
		t.Fatal(err)
	}
	noWindows := filepath.Join(dir, "run")
	if err := os.Mkdir(noWindows, 0o755); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(dir, "cache")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"build", "--pgo-actors", "alice"}, "--pgo-actors chooses windows of --pgo-from"},
		{[]string{"build", "--pgo", profile, "--pgo-from", noWindows}, "--pgo and --pgo-from both name a profile"},
		{[]string{"build", "--pgo-from", noWindows}, "no profiling windows in " + noWindows + ": run with sampling: {mode: iteration} or lnbench pgo record"},
		{[]string{"build", "--pgo-from", filepath.Join(dir, "absent")}, "no profiling windows in"},
		{[]string{"pgo", "record", "--duration", "5s"}, "--duration 5s: use at least 10s"},
		{[]string{"pgo", "record", "--param", "Concurency=2"}, `param "Concurency" is unknown`},
	}
	for _, tt := range tests {
		args := append(append([]string(nil), tt.args...), "--cache", cache, "--images", filepath.Join(dir, "no-images"))
		refusedInOneLine(t, args, tt.want)
	}
	if _, err := os.Stat(filepath.Join(cache, "bin")); !os.IsNotExist(err) {
		t.Errorf("a refused command touched the build cache: %v", err)
	}
}
