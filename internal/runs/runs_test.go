package runs

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

func TestClaimMarksTheCallerAliveAndPrivate(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "20260101T120000Z-AlicePaysBob")
	if err := Claim(dir); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(dir)
	if st.Mode().Perm() != 0o700 {
		t.Errorf("work folder mode %v, want 0700", st.Mode().Perm())
	}
	rs, err := Local(root)
	if err != nil || len(rs) != 1 {
		t.Fatalf("Local: %v %v", rs, err)
	}
	r := rs[0]
	if !r.Alive || r.PID != os.Getpid() {
		t.Errorf("claimed run: %+v, want alive with our pid", r)
	}
	if want := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC); !r.Started.Equal(want) {
		t.Errorf("started %v, want %v", r.Started, want)
	}
	if err := RemoveWorkDir(r); err == nil {
		t.Error("removing a live run's work folder must be refused")
	}
}

func TestAFinishedHarnessIsDeadAndItsFolderRemovable(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "20260101T120000Z-x")
	os.MkdirAll(dir, 0o700)
	// A pid that no longer runs, with a start time it never had.
	os.WriteFile(filepath.Join(dir, harnessFile), []byte("999999999 12345\n"), 0o600)
	rs, _ := Local(root)
	if len(rs) != 1 || rs[0].Alive {
		t.Fatalf("dead harness shown alive: %+v", rs)
	}
	if err := RemoveWorkDir(rs[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("work folder still there: %v", err)
	}
}

func TestRecycledPidIsNotAlive(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "r")
	os.MkdirAll(dir, 0o700)
	// Our own pid but another start time: the pid was reused.
	os.WriteFile(filepath.Join(dir, harnessFile), []byte(itoa(os.Getpid())+" 1\n"), 0o600)
	if _, alive := harness(dir); alive {
		t.Error("a pid with another start time must not count as the harness")
	}
}

func TestMergeAddsDockerOnlyRunsAndSortsNewestFirst(t *testing.T) {
	local := []Run{{ID: "20260101T120000Z-a", Started: StartedAt("20260101T120000Z-a"), WorkDir: "/w/a"}}
	got := Merge(local, map[string]int{"20260101T120000Z-a": 3, "20260102T120000Z-b": 2, "odd": 1})
	if len(got) != 3 || got[0].ID != "20260102T120000Z-b" || got[1].Objects != 3 || got[2].ID != "odd" {
		t.Errorf("merged: %+v", got)
	}
	if IDs(nil) != "none" || IDs(got) != "20260102T120000Z-b, 20260101T120000Z-a, odd" {
		t.Errorf("IDs: %q", IDs(got))
	}
}

func TestLocalWithoutRootIsEmpty(t *testing.T) {
	rs, err := Local(filepath.Join(t.TempDir(), "missing"))
	if err != nil || len(rs) != 0 {
		t.Errorf("%v %v", rs, err)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
