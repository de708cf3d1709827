package gitrev

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lnbench/lnbench/internal/testsupport"
)

// repo is a throwaway git repository for the tests.
type repo struct {
	t   *testing.T
	dir string
}

func newRepo(t *testing.T) repo {
	t.Helper()
	r := repo{t: t, dir: t.TempDir()}
	r.git("init", "-q", "-b", "main")
	return r
}

func (r repo) git(args ...string) string {
	r.t.Helper()
	return testsupport.Git(r.t, r.dir, args...)
}

func (r repo) write(name, content string) {
	r.t.Helper()
	p := filepath.Join(r.dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r repo) commit(name, content, msg string) string {
	r.write(name, content)
	r.git("add", "-A")
	r.git("commit", "-q", "-m", msg)
	return r.git("rev-parse", "HEAD")
}

func TestResolveAndFirstParent(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	c0 := r.commit("a.txt", "0", "zero")
	r.git("tag", "v0")
	var ids []string
	for i, msg := range []string{"one", "two", "three"} {
		ids = append(ids, r.commit("a.txt", strings.Repeat("x", i+1), msg))
	}
	good, err := Resolve(ctx, r.dir, "v0")
	if err != nil || good.ID != c0 || good.Subject != "zero" || good.AuthorDate.IsZero() {
		t.Fatalf("Resolve(v0) = %+v, %v", good, err)
	}
	bad, err := Resolve(ctx, r.dir, "HEAD")
	if err != nil || bad.ID != ids[2] {
		t.Fatalf("Resolve(HEAD) = %+v, %v", bad, err)
	}
	commits, err := FirstParent(ctx, r.dir, good, bad)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range commits {
		got = append(got, c.Subject)
	}
	if strings.Join(got, ",") != "one,two,three" {
		t.Fatalf("FirstParent = %v", got)
	}
	if pos, err := Order(ctx, r.dir); err != nil || pos[c0] != 0 || pos[ids[2]] != 3 {
		t.Fatalf("Order = %v, %v", pos, err)
	}
	if _, err := FirstParent(ctx, r.dir, bad, good); err == nil || !strings.Contains(err.Error(), "not an ancestor") {
		t.Fatalf("swapped range: %v", err)
	}
	if _, err := Resolve(ctx, r.dir, "nosuchbranch"); err == nil || !strings.Contains(err.Error(), "no such commit") {
		t.Fatalf("missing revision: %v", err)
	}
	if _, err := Resolve(ctx, r.dir, "--all"); err == nil {
		t.Fatal("an option as a revision was accepted")
	}
	if _, err := Resolve(ctx, t.TempDir(), "HEAD"); err == nil || !strings.Contains(err.Error(), "not a git clone") {
		t.Fatalf("not a clone: %v", err)
	}
	sub := filepath.Join(r.dir, "sub")
	os.Mkdir(sub, 0o755)
	if _, err := Resolve(ctx, sub, "HEAD"); err == nil || !strings.Contains(err.Error(), "not its top") {
		t.Fatalf("folder inside a clone: %v", err)
	}
}

func TestFirstParentRefusesASideBranchGood(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	r.commit("a.txt", "0", "base")
	r.git("checkout", "-q", "-b", "side")
	side := r.commit("b.txt", "side", "on the side")
	r.git("checkout", "-q", "main")
	r.commit("a.txt", "1", "main work")
	r.git("merge", "-q", "--no-ff", "-m", "merge side", "side")
	good, _ := Resolve(ctx, r.dir, side)
	bad, _ := Resolve(ctx, r.dir, "HEAD")
	if _, err := FirstParent(ctx, r.dir, good, bad); err == nil || !strings.Contains(err.Error(), "first-parent") {
		t.Fatalf("side-branch good: %v", err)
	}
	base, _ := Resolve(ctx, r.dir, "HEAD~1")
	commits, err := FirstParent(ctx, r.dir, base, bad)
	if err != nil || len(commits) != 1 || commits[0].Subject != "merge side" {
		t.Fatalf("first-parent range over a merge = %v, %v", commits, err)
	}
}

func TestExportTakesCommittedContentWithSubmodules(t *testing.T) {
	ctx := context.Background()
	lib := newRepo(t)
	libV1 := lib.commit("lib.c", "v1", "lib one")
	lib.commit("lib.c", "v2", "lib two")

	r := newRepo(t)
	r.commit("main.c", "committed", "base")
	r.git("submodule", "add", "-q", lib.dir, "external/lib")
	r.git("-C", "external/lib", "checkout", "-q", libV1)
	r.git("add", "-A")
	r.git("commit", "-q", "-m", "pin lib v1")
	head := r.git("rev-parse", "HEAD")
	if err := os.Symlink("main.c", filepath.Join(r.dir, "link.c")); err != nil {
		t.Fatal(err)
	}
	r.git("add", "link.c")
	r.git("commit", "-q", "-m", "a link")
	withLink := r.git("rev-parse", "HEAD")
	// The work tree moves on without committing: Export must not see it.
	r.write("main.c", "edited, not committed")
	r.write("untracked.c", "x")
	r.git("-C", "external/lib", "checkout", "-q", "main")
	statusBefore := r.git("status", "--porcelain")

	dst := filepath.Join(t.TempDir(), "out")
	if err := Export(ctx, r.dir, head, dst); err != nil {
		t.Fatal(err)
	}
	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join(dst, name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return string(data)
	}
	if got := read("main.c"); got != "committed" {
		t.Errorf("main.c = %q, want the committed content", got)
	}
	if got := read("external/lib/lib.c"); got != "v1" {
		t.Errorf("submodule lib.c = %q, want v1 (the commit the gitlink records)", got)
	}
	if _, err := os.Stat(filepath.Join(dst, "untracked.c")); err == nil {
		t.Error("an untracked file was exported")
	}
	if _, err := os.Stat(filepath.Join(dst, "link.c")); err == nil {
		t.Error("a file of a later commit was exported")
	}
	dst2 := filepath.Join(t.TempDir(), "out")
	if err := Export(ctx, r.dir, withLink, dst2); err != nil {
		t.Fatal(err)
	}
	if target, err := os.Readlink(filepath.Join(dst2, "link.c")); err != nil || target != "main.c" {
		t.Errorf("symlink = %q, %v", target, err)
	}
	if after := r.git("status", "--porcelain"); after != statusBefore {
		t.Errorf("the clone changed: status %q, was %q", after, statusBefore)
	}
	if !Dirty(ctx, r.dir) {
		t.Error("Dirty = false with an uncommitted edit")
	}
}

func TestExportNamesAMissingSubmodule(t *testing.T) {
	ctx := context.Background()
	lib := newRepo(t)
	lib.commit("lib.c", "v1", "lib one")
	r := newRepo(t)
	r.commit("main.c", "x", "base")
	r.git("submodule", "add", "-q", lib.dir, "external/lib")
	r.git("commit", "-q", "-m", "add lib")
	head := r.git("rev-parse", "HEAD")
	// A fresh clone without --recursive has the gitlink, not the objects.
	clone := filepath.Join(t.TempDir(), "clone")
	r.git("clone", "-q", r.dir, clone)
	err := Export(ctx, clone, head, filepath.Join(t.TempDir(), "out"))
	if err == nil || !strings.Contains(err.Error(), "submodule update --init") {
		t.Fatalf("Export without the submodule: %v", err)
	}
}
