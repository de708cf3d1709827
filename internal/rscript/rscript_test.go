package rscript

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunWithoutR(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	if err := Run(context.Background(), t.TempDir(), "x.R", "x.png"); !errors.Is(err, ErrNoR) {
		t.Fatalf("err %v, want ErrNoR", err)
	}
}

func TestRunRemovesTheOldPlotAndNamesAFailure(t *testing.T) {
	if _, err := exec.LookPath("Rscript"); err != nil {
		t.Skip("Rscript not installed")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "ok.R"), []byte(`writeLines("drawn", "plot.txt")`), 0o644)
	os.WriteFile(filepath.Join(dir, "plot.txt"), []byte("stale"), 0o644)
	if err := Run(context.Background(), dir, "ok.R", "plot.txt"); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "plot.txt")); strings.TrimSpace(string(data)) != "drawn" {
		t.Fatalf("plot %q", data)
	}
	os.WriteFile(filepath.Join(dir, "bad.R"), []byte(`stop("no data here")`), 0o644)
	err := Run(context.Background(), dir, "bad.R", "plot.txt")
	if err == nil || !strings.Contains(err.Error(), "no data here") {
		t.Fatalf("err %v", err)
	}
	if _, serr := os.Stat(filepath.Join(dir, "plot.txt")); serr == nil {
		t.Error("a failed run left the old plot")
	}
}
