package collect

import (
	"context"
	"testing"
	"time"
)

func TestProbeDisk(t *testing.T) {
	dir := t.TempDir()
	p, err := ProbeDisk(context.Background(), dir, "disk", 200*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if p.Syncs <= 0 || p.SyncsPerSecond <= 0 || p.Seconds < 0.2 || p.Storage != "disk" || p.Path != dir || p.Filesystem == "" {
		t.Fatalf("probe: %+v", p)
	}
	if fs := FilesystemOf("/proc/self"); fs != "proc" {
		t.Fatalf("FilesystemOf(/proc/self) = %q", fs)
	}
}
