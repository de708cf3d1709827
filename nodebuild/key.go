package nodebuild

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// Toolchain is the Go version `go` selects in dir (it honours the module's
// toolchain line), which may differ from the one lnbench was built with.
func Toolchain(ctx context.Context, dir string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "env", "GOVERSION")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go env GOVERSION in %s: %v (is Go installed and on PATH?)", dir, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// toolchainDir is where Toolchain runs for spec.
func toolchainDir(spec Spec) string {
	if spec.IsSource() {
		return spec.SourceDir
	}
	return spec.ModuleDir
}

// Key hashes what decides the binaries: the source (a release module's go.mod
// and go.sum, or every file of a source tree), the tags, the toolchain, the
// target platform and the flavour's knobs. A release with the default
// flavour hashes exactly what earlier lnbench versions hashed, so their
// cached builds stay valid.
func Key(spec Spec, toolchain string) (string, error) {
	h := sha256.New()
	if spec.IsRevision() {
		// A commit's content is fixed: its id stands for it.
		fmt.Fprintf(h, "git-commit %s %s\n", spec.Implementation, spec.Commit.ID)
	} else if spec.IsSource() {
		fmt.Fprintf(h, "source-tree %s\n", spec.Implementation)
		if err := hashTree(h, spec.SourceDir); err != nil {
			return "", fmt.Errorf("source tree %s: %v", spec.SourceDir, err)
		}
	} else {
		for _, f := range []string{"go.mod", "go.sum"} {
			data, err := os.ReadFile(filepath.Join(spec.ModuleDir, f))
			if err != nil {
				return "", fmt.Errorf("build module %s: %v (is --images pointing at the repo's images/ folder?)", spec.ModuleDir, err)
			}
			fmt.Fprintf(h, "%s\n%d\n", f, len(data))
			h.Write(data)
		}
	}
	fmt.Fprintf(h, "tags=%s go=%s %s/%s cgo=0", strings.Join(Tags, ","), toolchain, runtime.GOOS, runtime.GOARCH)
	if err := hashFlavour(h, spec.Flavour); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// hashFlavour adds only the knobs that differ from the default, so a default
// flavour adds nothing.
func hashFlavour(h io.Writer, f Flavour) error {
	if f.PGO != "" {
		sum, err := fileSHA256(f.PGO)
		if err != nil {
			return fmt.Errorf("pgo profile: %v", err)
		}
		fmt.Fprintf(h, "\npgo=%s", sum)
	}
	if f.goamd64() != "v1" {
		fmt.Fprintf(h, "\ngoamd64=%s", f.GOAMD64)
	}
	if f.GCFlags != "" {
		fmt.Fprintf(h, "\ngcflags=%q", f.GCFlags)
	}
	if f.LDFlags != "" {
		fmt.Fprintf(h, "\nldflags=%q", f.LDFlags)
	}
	if t := f.extraTags(); len(t) > 0 {
		fmt.Fprintf(h, "\nextra-tags=%s", strings.Join(t, ","))
	}
	return nil
}

// hashTree hashes every file of a source tree by relative path, kind and
// content. Skipped: .git (history is not source) and _test.go files (never
// part of a binary). WalkDir visits in lexical order, so the hash is stable.
func hashTree(h hash.Hash, root string) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir() && d.Name() == ".git":
			return filepath.SkipDir
		case d.IsDir():
			return nil
		case d.Name() == ".git" || strings.HasSuffix(d.Name(), "_test.go"):
			return nil // .git file of a worktree or submodule; tests
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "link %s %s\n", rel, target)
			return nil
		case !d.Type().IsRegular():
			return nil // sockets, fifos
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "file %s %d\n", rel, st.Size())
		_, err = io.Copy(h, f)
		return err
	})
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
