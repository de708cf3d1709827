package nodebuild

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lnbench/lnbench/internal/testsupport"
)

// gitRepo makes a git clone of a fake LND tree with two commits and
// returns it with their ids.
func gitRepo(t *testing.T) (dir, first, second string) {
	t.Helper()
	dir = fakeTree(t)
	os.RemoveAll(filepath.Join(dir, ".git"))
	g := func(args ...string) string { return testsupport.Git(t, dir, args...) }
	g("init", "-q", "-b", "master")
	g("add", "-A")
	g("commit", "-q", "-m", "release")
	first = g("rev-parse", "HEAD")
	write(t, filepath.Join(dir, "htlcswitch", "switch.go"), "package htlcswitch\n\n// committed change\n")
	g("commit", "-q", "-am", "htlcswitch: a change")
	second = g("rev-parse", "HEAD")
	return dir, first, second
}

func TestRevisionKeyIsTheCommit(t *testing.T) {
	dir, first, second := gitRepo(t)
	ctx := context.Background()
	a, err := FromRevision(ctx, "lnd", dir, "HEAD~1")
	if err != nil {
		t.Fatal(err)
	}
	if a.Commit.ID != first || a.Revision != "HEAD~1" || a.Commit.Subject != "release" {
		t.Fatalf("spec %+v", a)
	}
	b, _ := Parse("", "lnd@src:"+dir+"#"+second[:10])
	if b.Commit.ID != second || !b.IsRevision() || b.Text() != "lnd@src:"+dir+"#"+second[:10] {
		t.Fatalf("parsed %+v", b)
	}
	ka, kb := mustKey(t, a, "go1.26.8"), mustKey(t, b, "go1.26.8")
	if ka == kb {
		t.Fatal("two commits share a key")
	}
	// The work tree's edits are not the revision's content.
	write(t, filepath.Join(dir, "htlcswitch", "switch.go"), "package htlcswitch\n\n// uncommitted\n")
	if mustKey(t, a, "go1.26.8") != ka {
		t.Fatal("an uncommitted edit changed a revision's key")
	}
	// The same commit named another way is the same build.
	byID, _ := FromRevision(ctx, "lnd", dir, first)
	if mustKey(t, byID, "go1.26.8") != ka {
		t.Fatal("the same commit by id has another key")
	}
	tree, _ := FromSource("lnd", dir)
	if mustKey(t, tree, "go1.26.8") == kb {
		t.Fatal("a tree and a revision share a key")
	}
}

func TestFromRevisionRefusesWithAFix(t *testing.T) {
	dir, _, _ := gitRepo(t)
	ctx := context.Background()
	notClone := fakeTree(t)
	os.RemoveAll(filepath.Join(notClone, ".git"))
	for _, tc := range []struct{ impl, dir, rev, want string }{
		{"lnd", dir, "v9.9.9", "no such commit"},
		{"lnd", notClone, "HEAD", "not a git clone"},
		{"lnd", filepath.Join(dir, "htlcswitch"), "HEAD", "not its top"},
		{"cln", dir, "HEAD", "not a Core Lightning tree"},
		{"cln", "/tmp/lightning-v26.06.6-src.tar.xz", "HEAD", "a tarball has no revisions"},
		{"ldk", dir, "HEAD", "unknown implementation"},
	} {
		_, err := FromRevision(ctx, tc.impl, tc.dir, tc.rev)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s@src:%s#%s: %v, want %q", tc.impl, tc.dir, tc.rev, err, tc.want)
		}
	}
}

// TestEnsureBuildsTheCommittedContent stands in for go: the build step
// reads the tree the generated module replaces onto and checks it holds
// the commit's content, not the work tree's, then writes the binaries.
func TestEnsureBuildsTheCommittedContent(t *testing.T) {
	dir, first, _ := gitRepo(t)
	write(t, filepath.Join(dir, "htlcswitch", "switch.go"), "package htlcswitch\n\n// uncommitted\n")
	spec, err := FromRevision(context.Background(), "lnd", dir, first)
	if err != nil {
		t.Fatal(err)
	}
	var builtFrom string
	old := runCommand
	runCommand = func(ctx context.Context, c command) error {
		if c.Args[0] != "build" {
			return nil // go mod tidy
		}
		mod, err := os.ReadFile(filepath.Join(c.Dir, "go.mod"))
		if err != nil {
			return err
		}
		for _, line := range strings.Split(string(mod), "\n") {
			if strings.HasPrefix(line, "replace github.com/lightningnetwork/lnd =>") {
				builtFrom = strings.TrimSpace(strings.TrimPrefix(line, "replace github.com/lightningnetwork/lnd =>"))
			}
		}
		src, err := os.ReadFile(filepath.Join(builtFrom, "htlcswitch", "switch.go"))
		if err != nil {
			return err
		}
		if string(src) != "package htlcswitch\n" {
			t.Errorf("the build saw %q, not the commit's content", src)
		}
		var out string
		for i, a := range c.Args {
			if a == "-o" {
				out = c.Args[i+1]
			}
		}
		for name := range Packages {
			if err := os.WriteFile(filepath.Join(out, name), []byte(name), 0o755); err != nil {
				return err
			}
		}
		return nil
	}
	t.Cleanup(func() { runCommand = old })
	cache := t.TempDir()
	var log bytes.Buffer
	r, err := Ensure(context.Background(), cache, spec, &log)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if builtFrom == "" || strings.HasPrefix(builtFrom, dir) {
		t.Fatalf("built from %q: must be an export, not the clone %s", builtFrom, dir)
	}
	m := r.Manifest
	if m.GitCommit != first || m.GitSubject != "release" || m.Revision != first || m.SourceDir != dir || m.GitDirty {
		t.Fatalf("manifest %+v", m)
	}
	if !strings.Contains(m.From(), "(commit "+first[:12]+" release)") {
		t.Errorf("From() = %q", m.From())
	}
	if _, err := os.Stat(builtFrom); err == nil {
		t.Error("the export outlived the build")
	}
	if again, err := Ensure(context.Background(), cache, spec, &log); err != nil || again.Built {
		t.Fatalf("a second Ensure built again: %v %v", again.Built, err)
	}
	if entries, _ := List(cache); len(entries) != 1 || entries[0].SupersededBy != "" || lineage(entries[0].Manifest) != "" {
		t.Fatalf("a revision build is in a lineage: %+v", entries)
	}
}
