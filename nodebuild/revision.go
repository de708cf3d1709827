package nodebuild

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"golang.org/x/mod/modfile"

	"github.com/lnbench/lnbench/gitrev"
)

// FromRevision is the spec of a git revision of the clone at dir: the
// revision resolves to a commit now, and its committed content is what
// gets built (checked here to be a tree of impl).
func FromRevision(ctx context.Context, impl, dir, rev string) (Spec, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Spec{}, err
	}
	name := fmt.Sprintf("node build %s@src:%s#%s", impl, dir, rev)
	if impl == CLN && isTarball(abs) {
		return Spec{}, fmt.Errorf("%s: a tarball has no revisions; drop #%s, or point it at a git clone", name, rev)
	}
	mod, isGo := modulePaths[impl]
	if !isGo && impl != CLN {
		return Spec{}, fmt.Errorf("%s: unknown implementation %q (known: lnd, cln)", name, impl)
	}
	c, err := gitrev.Resolve(ctx, abs, rev)
	if err != nil {
		return Spec{}, fmt.Errorf("%s: %v", name, err)
	}
	if isGo {
		data, err := gitrev.Show(ctx, abs, c.ID, "go.mod")
		if err != nil {
			return Spec{}, fmt.Errorf("%s: %v (point it at a clone of %s)", name, err, mod)
		}
		f, err := modfile.ParseLax("go.mod", data, nil)
		if err != nil || f.Module == nil {
			return Spec{}, fmt.Errorf("%s: go.mod at %s has no module line", name, c.Short)
		}
		if f.Module.Mod.Path != mod {
			return Spec{}, fmt.Errorf("%s: the tree at %s is module %s, not %s", name, c.Short, f.Module.Mod.Path, mod)
		}
	} else {
		for _, f := range []string{"configure", "lightningd/lightningd.c"} {
			if !gitrev.HasFile(ctx, abs, c.ID, f) {
				return Spec{}, fmt.Errorf("%s: not a Core Lightning tree at %s (no %s); point it at a clone of github.com/ElementsProject/lightning", name, c.Short, f)
			}
		}
	}
	return Spec{Implementation: impl, Version: SourceVersion, SourceDir: abs, Revision: rev, Commit: c}, nil
}

// revisionToolchain is the Go toolchain `go` selects for the commit's
// go.mod (its toolchain line may differ from the work tree's): go env
// runs in a folder holding only that go.mod.
func revisionToolchain(ctx context.Context, spec Spec) (string, error) {
	data, err := gitrev.Show(ctx, spec.SourceDir, spec.Commit.ID, "go.mod")
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "lnbench-gomod-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), data, 0o644); err != nil {
		return "", err
	}
	return Toolchain(ctx, dir)
}

// exportRevision writes the commit's content into dir and returns the
// spec that builds it there (the user's clone is never touched).
func exportRevision(ctx context.Context, spec Spec, dir string, log io.Writer) (Spec, error) {
	fmt.Fprintf(log, "exporting %s (%s) from %s\n", spec.Commit.Short, spec.Commit.Subject, spec.SourceDir)
	if err := gitrev.Export(ctx, spec.SourceDir, spec.Commit.ID, dir); err != nil {
		return spec, fmt.Errorf("%s: %v", spec.Text(), err)
	}
	built := spec
	built.SourceDir, built.Revision, built.Commit = dir, "", gitrev.Commit{}
	return built, nil
}
