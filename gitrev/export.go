package gitrev

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Export writes the committed content of commit into dst (an empty or new
// folder): `git archive` of the commit, then each submodule at the commit
// its gitlink records, recursively. A submodule's objects must be in the
// clone (its checkout, or .git/modules); nothing is fetched.
func Export(ctx context.Context, repo, commit, dst string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	return export(ctx, repo, commit, dst, "")
}

func export(ctx context.Context, repo, commit, dst, prefix string) error {
	if err := archive(ctx, repo, commit, filepath.Join(dst, prefix)); err != nil {
		return err
	}
	subs, err := gitlinks(ctx, repo, commit)
	if err != nil {
		return err
	}
	for _, s := range subs {
		subRepo, err := submoduleRepo(ctx, repo, s.path, s.commit)
		if err != nil {
			return fmt.Errorf("submodule %s at %s: %v", filepath.Join(prefix, s.path), ShortID(s.commit), err)
		}
		if err := export(ctx, subRepo, s.commit, dst, filepath.Join(prefix, s.path)); err != nil {
			return err
		}
	}
	return nil
}

// archive streams `git archive` of commit and unpacks it under dir.
func archive(ctx context.Context, repo, commit, dir string) error {
	cmd := exec.CommandContext(ctx, "git", "--no-optional-locks", "-C", repo, "archive", "--format=tar", commit)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	uerr := untar(out, dir)
	_, _ = io.Copy(io.Discard, out)
	if werr := cmd.Wait(); werr != nil {
		return fmt.Errorf("git archive %s in %s: %v %s", ShortID(commit), repo, werr, strings.TrimSpace(stderr.String()))
	}
	return uerr
}

// untar unpacks regular files, folders and symlinks, refusing any path
// that would leave dir.
func untar(r io.Reader, dir string) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading git archive: %v", err)
		}
		name := filepath.Clean(filepath.FromSlash(h.Name))
		if name == "." || strings.HasPrefix(name, ".."+string(filepath.Separator)) || name == ".." || filepath.IsAbs(name) {
			continue
		}
		path := filepath.Join(dir, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(path, 0o755); err != nil {
				return err
			}
		case tar.TypeSymlink:
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return err
			}
			if err := os.Symlink(h.Linkname, path); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return err
			}
			if err := writeFile(path, tr, os.FileMode(h.Mode).Perm()|0o600); err != nil {
				return err
			}
		}
	}
}

func writeFile(path string, r io.Reader, mode os.FileMode) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

type gitlink struct{ path, commit string }

// gitlinks are the submodules commit records: path and commit.
func gitlinks(ctx context.Context, repo, commit string) ([]gitlink, error) {
	out, err := git(ctx, repo, "ls-tree", "-r", "-z", commit)
	if err != nil {
		return nil, fmt.Errorf("git ls-tree %s: %v", ShortID(commit), err)
	}
	var links []gitlink
	for _, entry := range strings.Split(string(out), "\x00") {
		meta, path, ok := strings.Cut(entry, "\t")
		f := strings.Fields(meta)
		if ok && len(f) == 3 && f[1] == "commit" {
			links = append(links, gitlink{path: path, commit: f[2]})
		}
	}
	return links, nil
}

// submoduleRepo is a git repository of repo's that holds the submodule
// commit: the submodule's checkout, else its folder under the clone's git
// dir (modules/<path>).
func submoduleRepo(ctx context.Context, repo, path, commit string) (string, error) {
	var tried []string
	// Each candidate with the file that makes it a repository of its own
	// (an uninitialised submodule's empty folder would reach repo's).
	candidates := [][2]string{{filepath.Join(repo, path), ".git"}}
	if gitDir, err := git(ctx, repo, "rev-parse", "--absolute-git-dir"); err == nil {
		candidates = append(candidates, [2]string{filepath.Join(strings.TrimSpace(string(gitDir)), "modules", path), "HEAD"})
	}
	for _, cand := range candidates {
		c := cand[0]
		if _, err := os.Stat(filepath.Join(c, cand[1])); err != nil {
			continue
		}
		tried = append(tried, c)
		if _, err := git(ctx, c, "cat-file", "-e", commit+"^{commit}"); err == nil {
			return c, nil
		}
	}
	if len(tried) == 0 {
		return "", fmt.Errorf("not checked out in %s; run `git -C %s submodule update --init --recursive`", repo, repo)
	}
	return "", fmt.Errorf("commit not in %s; run `git -C %s submodule update --init --recursive` (or fetch it in the submodule)", strings.Join(tried, ", "), repo)
}
