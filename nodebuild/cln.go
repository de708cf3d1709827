package nodebuild

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// CLN is Core Lightning's implementation name. Its builds come from a
// source tree (or a release tarball of one) compiled with the tree's own
// ./configure and make; nothing is fetched, so --disable-rust is forced
// (its Rust plugins need crates).
const CLN = "cln"

// clnRecipe names the steps below; changing them changes every CLN key.
const clnRecipe = "cln-recipe-2: copy tree; ./configure --disable-rust COPTFLAGS CDEBUGFLAGS (with libpq: HAVE_POSTGRES=1); make all-programs; make install PREFIX=/"

// clnLightningd is the binary a CLN build must yield (its subdaemons and
// plugins sit in ../libexec/c-lightning, where lightningd finds them).
const clnLightningd = "bin/lightningd"

// cKnobs names a flavour's C build knobs, as a spec writes them.
func (f Flavour) cKnobs() []string {
	var out []string
	if f.COpt != "" {
		out = append(out, "opt="+f.COpt)
	}
	if f.March != "" {
		out = append(out, "march="+f.March)
	}
	if f.FramePointers {
		out = append(out, "fp=on")
	}
	if len(f.Configure) > 0 {
		out = append(out, "configure="+strings.Join(f.Configure, ","))
	}
	return out
}

// clnFromSource is the spec of a CLN tree or tarball at path; it refuses a
// path that is neither, in one line naming what was expected.
func clnFromSource(path string) (Spec, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return Spec{}, err
	}
	fail := func(why string) (Spec, error) {
		return Spec{}, fmt.Errorf("node build cln@src:%s: %s; point it at a clone of github.com/ElementsProject/lightning (with submodules) or a release tarball (.tar.xz, .tar.gz)", path, why)
	}
	st, err := os.Stat(abs)
	switch {
	case err != nil && strings.Contains(filepath.Base(path), "+"):
		return Spec{}, fmt.Errorf("node build cln@src:%s: no such file or folder; build options (+opt=O3, …) belong to a node spec: lnbench build --node 'cln@src:PATH+opt=O3'", path)
	case err != nil:
		return fail("no such file or folder")
	case !st.IsDir() && !isTarball(abs):
		return fail("a file that is not a .tar.xz or .tar.gz")
	case st.IsDir():
		for _, f := range []string{"configure", "lightningd/lightningd.c"} {
			if _, err := os.Stat(filepath.Join(abs, f)); err != nil {
				return fail("not a Core Lightning source tree (no " + f + ")")
			}
		}
	}
	return Spec{Implementation: CLN, Version: SourceVersion, SourceDir: abs}, nil
}

func isTarball(path string) bool {
	for _, ext := range []string{".tar.xz", ".tar.gz", ".tgz"} {
		if strings.HasSuffix(path, ext) {
			return true
		}
	}
	return false
}

// cCompiler is the compiler a CLN build uses: $CC, else cc.
func cCompiler() string {
	if cc := os.Getenv("CC"); cc != "" {
		return cc
	}
	return "cc"
}

// clnToolchain is the first line of the compiler's --version, plus what
// -march=native means on this machine when the flavour asks for it (the
// binaries differ between CPUs, so must the key).
func clnToolchain(ctx context.Context, f Flavour) (string, error) {
	out, err := exec.CommandContext(ctx, cCompiler(), "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %v (install a C compiler: apt-get install build-essential)", cCompiler(), err)
	}
	tc, _, _ := strings.Cut(string(out), "\n")
	if f.March == "native" {
		target, err := exec.CommandContext(ctx, cCompiler(), "-march=native", "-Q", "--help=target").Output()
		if err == nil {
			for _, line := range strings.Split(string(target), "\n") {
				if fields := strings.Fields(line); len(fields) == 2 && fields[0] == "-march=" {
					tc += " (native=" + fields[1] + ")"
				}
			}
		}
	}
	return strings.TrimSpace(tc), nil
}

// clnKey hashes the tree's files (or the tarball), the C knobs, the
// compiler and the recipe.
func clnKey(ctx context.Context, spec Spec, toolchain string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "source-tree %s\n%s\n", spec.Implementation, clnRecipe)
	if spec.IsRevision() {
		fmt.Fprintf(h, "git-commit %s\n", spec.Commit.ID)
	} else if isTarball(spec.SourceDir) {
		sum, err := fileSHA256(spec.SourceDir)
		if err != nil {
			return "", fmt.Errorf("source tarball %s: %v", spec.SourceDir, err)
		}
		fmt.Fprintf(h, "tarball %s\n", sum)
	} else {
		files, err := treeFiles(ctx, spec.SourceDir)
		if err != nil {
			return "", fmt.Errorf("source tree %s: %v", spec.SourceDir, err)
		}
		if err := hashFiles(h, spec.SourceDir, files); err != nil {
			return "", fmt.Errorf("source tree %s: %v", spec.SourceDir, err)
		}
	}
	fmt.Fprintf(h, "cc=%s\nknobs=%s\n", toolchain, strings.Join(spec.Flavour.cKnobs(), " "))
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// hashFiles hashes files (relative to root, sorted by the caller) by path,
// kind and content; a listed file that is gone is hashed as gone.
func hashFiles(h hash.Hash, root string, files []string) error {
	for _, rel := range files {
		path := filepath.Join(root, rel)
		st, err := os.Lstat(path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			fmt.Fprintf(h, "gone %s\n", rel)
			continue
		case err != nil:
			return err
		case st.Mode()&os.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "link %s %s\n", rel, target)
			continue
		case !st.Mode().IsRegular():
			continue
		}
		fmt.Fprintf(h, "file %s %d\n", rel, st.Size())
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// clnBuildEnv puts the system's tools first: CLN's build runs python3
// with mako, which a pyenv or venv python earlier in PATH may lack.
func clnBuildEnv() []string {
	return []string{"PATH=/usr/bin:/bin:" + os.Getenv("PATH")}
}

// configureArgs are ./configure's arguments for a flavour. COPTFLAGS and
// CDEBUGFLAGS are configure's own variables (CDEBUGFLAGS keeps CLN's -g,
// so the binaries keep their symbols for perf).
func configureArgs(f Flavour) []string {
	args := []string{"--disable-rust"}
	// Without opt, -march alone would replace CLN's default -Og with nothing.
	opt := []string{"-Og"}
	if f.COpt != "" {
		opt[0] = "-" + f.COpt
	}
	if f.March != "" {
		opt = append(opt, "-march="+f.March)
	}
	if f.COpt != "" || f.March != "" {
		args = append(args, "COPTFLAGS="+strings.Join(opt, " "))
	}
	if f.FramePointers {
		args = append(args, "CDEBUGFLAGS=-std=gnu11 -g -fstack-protector-strong -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer")
	}
	return append(args, f.Configure...)
}
