package nodebuild

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func releaseModule(t *testing.T) Spec {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "go.mod"), "module x\n")
	write(t, filepath.Join(dir, "go.sum"), "")
	return Spec{Implementation: "lnd", Version: "v0", ModuleDir: dir}
}

func mustKey(t *testing.T, s Spec, toolchain string) string {
	t.Helper()
	k, err := Key(s, toolchain)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestKeyFollowsContent(t *testing.T) {
	spec := releaseModule(t)
	a, b := mustKey(t, spec, "go1.26.8"), mustKey(t, spec, "go1.26.8")
	write(t, filepath.Join(spec.ModuleDir, "go.sum"), "x v1 h1:abc\n")
	c := mustKey(t, spec, "go1.26.8")
	if a != b || a == c || len(a) != 16 {
		t.Fatalf("keys %s %s %s", a, b, c)
	}
	if mustKey(t, spec, "go1.26.9") == c {
		t.Fatal("the toolchain must be part of the key")
	}
}

// A release with the default flavour keeps the key earlier lnbench versions
// computed, so their cached builds stay valid: the formula is pinned here.
func TestDefaultReleaseKeyUnchanged(t *testing.T) {
	spec := releaseModule(t)
	if got := mustKey(t, spec, "go1.26.8"); got != legacyKey(t, spec, "go1.26.8") {
		t.Fatalf("key %s differs from the pre-flavour formula %s", got, legacyKey(t, spec, "go1.26.8"))
	}
}

func TestFlavourKnobsChangeTheKeyAndNothingElseDoes(t *testing.T) {
	spec := releaseModule(t)
	profile := filepath.Join(t.TempDir(), "cpu.pprof")
	writeProfile(t, profile, 1)
	base := mustKey(t, spec, "go1.26.8")
	knobs := map[string]Flavour{
		"pgo":     {PGO: profile},
		"goamd64": {GOAMD64: "v3"},
		"gcflags": {GCFlags: "all=-l"},
		"ldflags": {LDFlags: "-s -w"},
		"tags":    {Tags: []string{"dev"}},
	}
	seen := map[string]string{base: "default"}
	for name, f := range knobs {
		s := spec
		s.Flavour = f
		k := mustKey(t, s, "go1.26.8")
		if other, dup := seen[k]; dup {
			t.Fatalf("%s gives the same key as %s", name, other)
		}
		seen[k] = name
	}
	// Spellings of the default, tag order and repeats change nothing.
	same := []Flavour{{GOAMD64: "v1"}, {Tags: []string{"routerrpc"}}, {Tags: nil}}
	for _, f := range same {
		s := spec
		s.Flavour = f
		if k := mustKey(t, s, "go1.26.8"); k != base {
			t.Fatalf("flavour %+v must keep the default key", f)
		}
	}
	ab, ba := spec, spec
	ab.Flavour.Tags, ba.Flavour.Tags = []string{"a", "b", "a"}, []string{"b", "a"}
	if mustKey(t, ab, "go1.26.8") != mustKey(t, ba, "go1.26.8") {
		t.Fatal("tag order must not change the key")
	}
	// The profile's content counts, not its name.
	withPGO := spec
	withPGO.Flavour.PGO = profile
	before := mustKey(t, withPGO, "go1.26.8")
	renamed := filepath.Join(t.TempDir(), "other-name.pprof")
	writeProfile(t, renamed, 1)
	withPGO.Flavour.PGO = renamed
	if mustKey(t, withPGO, "go1.26.8") != before {
		t.Fatal("a copy of the same profile must keep the key")
	}
	writeProfile(t, renamed, 2)
	if mustKey(t, withPGO, "go1.26.8") == before {
		t.Fatal("an edited profile must change the key")
	}
}

func fakeTree(t *testing.T) string {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "go.mod"), "module github.com/lightningnetwork/lnd\n\ngo 1.25.10\n\nreplace github.com/gogo/protobuf => github.com/gogo/protobuf v1.3.2\n\nreplace github.com/lightningnetwork/lnd/sqldb => ./sqldb\n")
	write(t, filepath.Join(dir, "go.sum"), "")
	write(t, filepath.Join(dir, "lnd.go"), "package lnd\n")
	write(t, filepath.Join(dir, "htlcswitch", "switch.go"), "package htlcswitch\n")
	write(t, filepath.Join(dir, ".git", "HEAD"), "ref: refs/heads/master\n")
	return dir
}

func TestSourceTreeKeyFollowsEditsOnly(t *testing.T) {
	dir := fakeTree(t)
	spec, err := FromSource("lnd", dir)
	if err != nil {
		t.Fatal(err)
	}
	base := mustKey(t, spec, "go1.26.8")
	// Not source of a binary: git metadata and tests.
	write(t, filepath.Join(dir, ".git", "HEAD"), "ref: refs/heads/patched\n")
	write(t, filepath.Join(dir, "htlcswitch", "switch_test.go"), "package htlcswitch\n")
	if mustKey(t, spec, "go1.26.8") != base {
		t.Fatal(".git and _test.go files must not change the key")
	}
	write(t, filepath.Join(dir, "htlcswitch", "switch.go"), "package htlcswitch\n\n// slower\n")
	edited := mustKey(t, spec, "go1.26.8")
	if edited == base {
		t.Fatal("an uncommitted edit must change the key")
	}
	write(t, filepath.Join(dir, "htlcswitch", "new.go"), "package htlcswitch\n")
	if mustKey(t, spec, "go1.26.8") == edited {
		t.Fatal("a new file must change the key")
	}
	// A moved file is different source even with the same bytes.
	a, b := fakeTree(t), fakeTree(t)
	write(t, filepath.Join(a, "x", "f.go"), "package x\n")
	write(t, filepath.Join(b, "y", "f.go"), "package x\n")
	sa, _ := FromSource("lnd", a)
	sb, _ := FromSource("lnd", b)
	if mustKey(t, sa, "go1.26.8") == mustKey(t, sb, "go1.26.8") {
		t.Fatal("file paths must be part of the key")
	}
	if release := releaseModule(t); mustKey(t, release, "go1.26.8") == base {
		t.Fatal("a tree and a release must not share keys")
	}
}

func TestSourceModuleReplacesOntoTheTree(t *testing.T) {
	dir := fakeTree(t)
	spec, _ := FromSource("lnd", dir)
	text, err := sourceModule(spec)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"go 1.25.10",
		"require github.com/lightningnetwork/lnd v0.0.0-00010101000000-000000000000",
		"replace github.com/lightningnetwork/lnd => " + dir,
		"replace github.com/gogo/protobuf => github.com/gogo/protobuf v1.3.2",
		"replace github.com/lightningnetwork/lnd/sqldb => " + filepath.Join(dir, "sqldb"),
		"\tgithub.com/btcsuite/btcd/cmd/btcctl\n",
		"\tgithub.com/lightningnetwork/lnd/cmd/lnd\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("generated go.mod lacks %q:\n%s", want, text)
		}
	}
}

func TestReleaseModuleDropsLocalReplaces(t *testing.T) {
	f, err := readModFile(filepath.Join(fakeTree(t), "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	text, dropped := buildModule("lnbench.local/images/lnd/v9", "1.22", f, "", nil)
	if len(dropped) != 1 || strings.Contains(text, "./sqldb") || !strings.Contains(text, "go 1.24\n") {
		t.Fatalf("dropped %v, go.mod:\n%s", dropped, text)
	}
}

func TestParseSpecs(t *testing.T) {
	images := t.TempDir()
	write(t, filepath.Join(images, "lnd", "v0.21.0-beta", "go.mod"), "module x\n")
	for _, text := range []string{"lnd@v0.21.0-beta", "lnd/v0.21.0-beta"} {
		s, err := Parse(images, text)
		if err != nil || s.ModuleDir != filepath.Join(images, "lnd", "v0.21.0-beta") || s.IsSource() {
			t.Fatalf("%s: %+v %v", text, s, err)
		}
	}
	tree := fakeTree(t)
	s, err := Parse(images, "lnd@src:"+tree)
	if err != nil || s.SourceDir != tree || s.Version != SourceVersion || s.Text() != "lnd@src:"+tree {
		t.Fatalf("src: %+v %v", s, err)
	}
	bad := map[string]string{
		"lnd":                  "use IMPL@VERSION",
		"lnd@v9":               "--add-version v9",
		"cln@src:" + tree:      "not a Core Lightning source tree",
		"eclair@src:" + tree:   "unknown implementation",
		"lnd@src:" + images:    "point it at a clone",
		"lnd@src:/nonexistent": "point it at a clone",
	}
	for text, want := range bad {
		if _, err := Parse(images, text); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", text, err, want)
		}
	}
	other := t.TempDir()
	write(t, filepath.Join(other, "go.mod"), "module example.com/other\n")
	if _, err := FromSource("lnd", other); err == nil || !strings.Contains(err.Error(), "not github.com/lightningnetwork/lnd") {
		t.Fatalf("wrong module: %v", err)
	}
}

// writeProfile writes a one-sample CPU profile whose count is n.
func writeProfile(t *testing.T, path string, n int64) {
	fn := &profile.Function{ID: 1, Name: "main.work"}
	loc := &profile.Location{ID: 1, Line: []profile.Line{{Function: fn}}}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}},
		Sample:     []*profile.Sample{{Location: []*profile.Location{loc}, Value: []int64{n}}},
		Location:   []*profile.Location{loc},
		Function:   []*profile.Function{fn},
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := p.Write(f); err != nil {
		t.Fatal(err)
	}
}

func TestFlavourValidation(t *testing.T) {
	notProfile := filepath.Join(t.TempDir(), "go.mod")
	write(t, notProfile, "module x\n")
	bad := map[string]Flavour{
		"goamd64":                               {GOAMD64: "v5"},
		"pgo":                                   {PGO: filepath.Join(t.TempDir(), "missing.pprof")},
		`pgo "` + notProfile + `": not a pprof`: {PGO: notProfile},
		"tags":                                  {Tags: []string{"a b"}},
	}
	for want, f := range bad {
		if err := f.Validate(); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%+v: error %v, want it to name %s", f, err, want)
		}
	}
	good := filepath.Join(t.TempDir(), "cpu.pprof")
	writeProfile(t, good, 3)
	if err := (Flavour{GOAMD64: "v3", Tags: []string{"dev"}, PGO: good}).Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestBuildArgs(t *testing.T) {
	args := strings.Join(buildArgs(Flavour{PGO: "/p/cpu.pprof", GCFlags: "all=-l", LDFlags: "-s", Tags: []string{"dev"}}, nil, "/out"), " ")
	for _, want := range []string{"-trimpath", "-pgo=/p/cpu.pprof", "-gcflags=all=-l", "-ldflags=-s", "kvdb_sqlite", " dev ", "-o /out/"} {
		if !strings.Contains(args, want) {
			t.Errorf("args lack %q: %s", want, args)
		}
	}
}
