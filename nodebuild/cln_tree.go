package nodebuild

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/lnbench/lnbench/internal/fileutil"
)

// treeFiles lists a source tree's files, relative and sorted. In a git
// checkout they are the tracked and untracked-but-not-ignored files of the
// tree and of its submodules, so build outputs of an earlier in-tree make
// (ignored by CLN's .gitignore) neither change the key nor get copied.
// Elsewhere (an extracted tarball) every file but .git counts.
func treeFiles(ctx context.Context, root string) ([]string, error) {
	var files []string
	var err error
	if commit, _ := gitState(ctx, root); commit != "" {
		files, err = gitFiles(ctx, root, "")
	} else {
		files, err = walkFiles(root)
	}
	sort.Strings(files)
	return files, err
}

func gitFiles(ctx context.Context, root, prefix string) ([]string, error) {
	dir := filepath.Join(root, prefix)
	out, err := exec.CommandContext(ctx, "git", "-C", dir, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files in %s: %v", dir, err)
	}
	var files []string
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if name == "" {
			continue
		}
		rel := filepath.Join(prefix, name)
		st, err := os.Lstat(filepath.Join(root, rel))
		if err == nil && st.IsDir() {
			// A submodule: its own files, unless it was never checked out.
			sub, err := gitFiles(ctx, root, rel)
			if err != nil {
				return nil, fmt.Errorf("submodule %s: %v (run git submodule update --init --recursive)", rel, err)
			}
			files = append(files, sub...)
			continue
		}
		files = append(files, rel)
	}
	return files, nil
}

func walkFiles(root string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == ".git" {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(root, path)
			files = append(files, rel)
		}
		return nil
	})
	return files, err
}

// copyTree copies files (relative to root) into dst, keeping modes and
// symlinks: the build never writes into the user's tree.
func copyTree(root, dst string, files []string) error {
	for _, rel := range files {
		src, to := filepath.Join(root, rel), filepath.Join(dst, rel)
		st, err := os.Lstat(src)
		if os.IsNotExist(err) {
			continue // deleted in the work tree, still in git's index
		}
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		switch {
		case st.Mode()&os.ModeSymlink != 0:
			target, err := os.Readlink(src)
			if err != nil {
				return err
			}
			if err := os.Symlink(target, to); err != nil {
				return err
			}
		case st.Mode().IsRegular():
			if err := fileutil.Copy(src, to, st.Mode().Perm()); err != nil {
				return err
			}
		}
	}
	return nil
}

var versionInName = regexp.MustCompile(`lightning-(v?[0-9][0-9A-Za-z.\-]*?)(-src)?(\.tar\.(xz|gz)|\.tgz)?$`)

// clnVersion is the version string lightningd will report, as CLN's
// Makefile would compute it in the user's tree (the build runs in a copy,
// where git describe and the folder name no longer tell): git describe in
// a checkout, else the tree's .version file, else the tarball's or
// folder's name.
func clnVersion(ctx context.Context, source, srcCopy string) string {
	if !isTarball(source) {
		out, err := exec.CommandContext(ctx, "git", "-C", source, "describe", "--tags", "--always", "--dirty=-modded", "--abbrev=7").Output()
		if v := strings.TrimSpace(string(out)); err == nil && v != "" {
			if commit, _ := gitState(ctx, source); commit != "" {
				return v
			}
		}
	}
	if data, err := os.ReadFile(filepath.Join(srcCopy, ".version")); err == nil {
		if v := string(bytes.TrimSpace(data)); v != "" {
			return v
		}
	}
	if m := versionInName.FindStringSubmatch(filepath.Base(source)); m != nil {
		v := m[1]
		if !strings.HasPrefix(v, "v") {
			v = "v" + v
		}
		return v
	}
	return "src"
}
