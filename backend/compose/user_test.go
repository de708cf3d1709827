package compose

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestContainersRunAsTheHarnessUnlessItIsRoot(t *testing.T) {
	if got := containerUser(1000, 1001); got != "1000:1001" {
		t.Errorf("harness 1000:1001 → %s", got)
	}
	if got := containerUser(0, 0); got != NonRootUser {
		t.Errorf("root harness → %s, want %s", got, NonRootUser)
	}
	if _, _, err := parseUser("nobody"); err == nil {
		t.Error("a name passed as uid:gid")
	}
}

func TestDataDirsAreHandedToTheContainerUser(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("only root hands folders to another user")
	}
	dir := filepath.Join(t.TempDir(), "alice")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := giveTo(dir, NonRootUser); err != nil {
		t.Fatal(err)
	}
	art := t.TempDir()
	if err := shareWith(art, NonRootUser); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(dir)
	if uid, gid, _ := owner(st); uid != 65532 || gid != 65532 || st.Mode().Perm() != 0o700 {
		t.Errorf("data dir %v owned by %d:%d", st.Mode(), uid, gid)
	}
	st, _ = os.Stat(art)
	if uid, gid, _ := owner(st); uid != 0 || gid != 65532 || st.Mode().Perm() != 0o775 {
		t.Errorf("artifacts %v owned by %d:%d", st.Mode(), uid, gid)
	}
}

func owner(st os.FileInfo) (uid, gid int, ok bool) {
	s, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return -1, -1, false
	}
	return int(s.Uid), int(s.Gid), true
}
