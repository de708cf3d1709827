package runs

import (
	"os"
	"path/filepath"
	"testing"
)

// The tests read no real /dev/shm/lnbench.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "runs-tmpfs-")
	if err != nil {
		panic(err)
	}
	TmpfsRoot = filepath.Join(dir, "shm")
	// ... nor the machine's PostgresRoot.
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		panic(err)
	}
	os.Setenv("TMPDIR", tmp)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// A killed Storage=tmpfs run left keys under TmpfsRoot: ps lists them with
// the run, down removes them with its work folder; a tmpfs folder whose
// work folder is gone is still a run.
func TestKilledTmpfsRunsFoldersAreFoundAndRemoved(t *testing.T) {
	root := t.TempDir()
	const killed, orphan = "20260101T120000Z-x", "20260101T130000Z-y"
	work := filepath.Join(root, killed)
	keys := filepath.Join(TmpfsRoot, killed, "launch1", "alice")
	lone := filepath.Join(TmpfsRoot, orphan, "launch1", "bob")
	for _, d := range []string{work, keys, lone} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(work, harnessFile), []byte("999999999 1\n"), 0o600) // a harness long gone
	os.WriteFile(filepath.Join(keys, "admin.macaroon"), []byte("k"), 0o600)
	// A live harness whose work folder is under another $TMPDIR: its tmpfs
	// folder is its own (Claim) and stays.
	const live = "20260101T140000Z-z"
	if err := Claim(filepath.Join(TmpfsRoot, live)); err != nil {
		t.Fatal(err)
	}
	rs, err := Local(root)
	if err != nil || len(rs) != 3 {
		t.Fatalf("Local: %+v %v", rs, err)
	}
	byID := map[string]Run{}
	for _, r := range rs {
		byID[r.ID] = r
	}
	if r := byID[live]; !r.Alive || RemoveWorkDir(r) == nil {
		t.Errorf("a live harness's tmpfs folder: %+v, removable", r)
	}
	if r := byID[killed]; r.WorkDir != work || r.TmpfsDir != filepath.Join(TmpfsRoot, killed) || r.Alive {
		t.Errorf("killed tmpfs run: %+v", r)
	}
	if r := byID[orphan]; r.WorkDir != "" || r.TmpfsDir != filepath.Join(TmpfsRoot, orphan) || !r.HasFolders() {
		t.Errorf("tmpfs folder alone: %+v", r)
	}
	for _, id := range []string{killed, orphan} {
		if err := RemoveWorkDir(byID[id]); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{work, filepath.Join(TmpfsRoot, killed), filepath.Join(TmpfsRoot, orphan)} {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Errorf("%s still there: %v", d, err)
		}
	}
	if _, err := os.Stat(filepath.Join(TmpfsRoot, live)); err != nil {
		t.Errorf("the live run's tmpfs folder: %v", err)
	}
}

// A harness killed outright (SIGKILL) cannot remove its PostgreSQL
// clusters, which hold the server's password file: ps lists them with the
// run, down removes them.
func TestKilledRunsPostgresClustersAreFoundAndRemoved(t *testing.T) {
	root := t.TempDir()
	const withWork, alone = "20260102T120000Z-p", "20260102T130000Z-q"
	work := filepath.Join(root, withWork)
	for _, d := range []string{work, filepath.Join(PostgresRoot(), withWork, "cluster-1", "data"), filepath.Join(PostgresRoot(), alone, "cluster-2")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(work, harnessFile), []byte("999999999 1\n"), 0o600)
	all, err := Local(root)
	if err != nil {
		t.Fatal(err)
	}
	var rs []Run
	for _, id := range []string{withWork, alone} {
		r, ok := Find(all, id)
		if !ok {
			t.Fatalf("run %s not found in %+v", id, all)
		}
		rs = append(rs, r)
	}
	for _, r := range rs {
		if r.PostgresDir != filepath.Join(PostgresRoot(), r.ID) || r.Alive {
			t.Errorf("run %s: %+v", r.ID, r)
		}
		if err := RemoveWorkDir(r); err != nil {
			t.Fatal(err)
		}
		for _, d := range r.Folders() {
			if _, err := os.Stat(d); !os.IsNotExist(err) {
				t.Errorf("%s still there: %v", d, err)
			}
		}
	}
}
