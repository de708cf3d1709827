package compose

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// NonRootUser is who a run's containers run as when the harness is root:
// no actor needs root (they drop every capability anyway). 65532 is the
// "nonroot" id of distroless images: no account on a Debian host has it.
const NonRootUser = "65532:65532"

// containerUser is who the containers run as: the harness's own ids, so
// the files they write are the harness's, unless the harness is root.
func containerUser(uid, gid int) string {
	if uid == 0 {
		return NonRootUser
	}
	return fmt.Sprintf("%d:%d", uid, gid)
}

func parseUser(user string) (uid, gid int, err error) {
	if _, err := fmt.Sscanf(user, "%d:%d", &uid, &gid); err != nil {
		return 0, 0, fmt.Errorf("container user %q: want uid:gid", user)
	}
	return uid, gid, nil
}

// giveTo hands a data dir the harness made to the containers' user (only
// root can, and only a root harness runs them as someone else).
func giveTo(dir, user string) error {
	uid, gid, err := parseUser(user)
	if err != nil || uid == os.Getuid() {
		return err
	}
	return os.Chown(dir, uid, gid)
}

// giveTreeTo is giveTo for a folder and everything in it.
func giveTreeTo(dir, user string) error {
	uid, gid, err := parseUser(user)
	if err != nil || uid == os.Getuid() {
		return err
	}
	return filepath.WalkDir(dir, func(path string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(path, uid, gid)
	})
}

// shareWith lets the containers' user write into a harness folder through
// its group (owner and mode otherwise kept).
func shareWith(dir, user string) error {
	uid, gid, err := parseUser(user)
	if err != nil || uid == os.Getuid() {
		return err
	}
	if err := os.Chown(dir, -1, gid); err != nil {
		return err
	}
	return os.Chmod(dir, 0o775)
}
