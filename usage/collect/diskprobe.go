package collect

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/lnbench/lnbench/usage"
)

// ProbeDisk measures the sync rate of the filesystem holding dir: 4 KiB
// written then fdatasync'd, in a loop for d (or until ctx ends), in a temp
// file removed afterwards. It is the ceiling a node's syncs per payment
// divide into.
func ProbeDisk(ctx context.Context, dir, storage string, d time.Duration) (usage.DiskProbe, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return usage.DiskProbe{}, err
	}
	f, err := os.CreateTemp(dir, ".lnbench-syncprobe-*")
	if err != nil {
		return usage.DiskProbe{}, err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	buf := make([]byte, 4096)
	var n int64
	start := time.Now()
	// Rewrite a small ring of blocks, as a database rewrites its pages.
	for time.Since(start) < d && ctx.Err() == nil {
		if _, err := f.WriteAt(buf, (n%256)*4096); err != nil {
			return usage.DiskProbe{}, err
		}
		if err := fdatasync(f); err != nil {
			return usage.DiskProbe{}, err
		}
		n++
	}
	secs := time.Since(start).Seconds()
	p := usage.DiskProbe{Storage: storage, Path: dir, Filesystem: FilesystemOf(dir), Seconds: secs, Syncs: n}
	if secs > 0 {
		p.SyncsPerSecond = float64(n) / secs
	}
	return p, nil
}

// FilesystemOf names the type of the filesystem holding path (ext4, tmpfs,
// overlay, …) from /proc/self/mountinfo; "" when unknown.
func FilesystemOf(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	best, fstype := -1, ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// "36 35 98:0 /mnt1 /mnt/point rw,noatime master:1 - ext3 /dev/root rw"
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		fields, tail := strings.Fields(pre), strings.Fields(post)
		if !ok || len(fields) < 5 || len(tail) < 1 {
			continue
		}
		mp := fields[4]
		if (abs == mp || strings.HasPrefix(abs, strings.TrimSuffix(mp, "/")+"/")) && len(mp) > best {
			best, fstype = len(mp), tail[0]
		}
	}
	return fstype
}
