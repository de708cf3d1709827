package nodebuild

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/google/pprof/profile"

	"github.com/lnbench/lnbench/gitrev"
	"github.com/lnbench/lnbench/nodespec"
)

// Tags are LND's RPC sub-servers plus the pure-Go SQLite and the
// PostgreSQL backends (LND's release builds carry both), so that one build
// runs on every database a node spec names.
var Tags = []string{"signrpc", "walletrpc", "chainrpc", "invoicesrpc", "routerrpc", "peersrpc", "kvdb_sqlite", "kvdb_postgres"}

// Packages are the binaries one LND build module yields, by file name.
var Packages = map[string]string{
	"lnd":    "github.com/lightningnetwork/lnd/cmd/lnd",
	"lncli":  "github.com/lightningnetwork/lnd/cmd/lncli",
	"btcd":   "github.com/btcsuite/btcd",
	"btcctl": "github.com/btcsuite/btcd/cmd/btcctl",
}

// modulePaths maps an implementation to the Go module a source tree of it must be.
var modulePaths = map[string]string{"lnd": "github.com/lightningnetwork/lnd"}

// SourceVersion is Spec.Version of a build from a local source tree.
const SourceVersion = "src"

// Spec describes one node build: implementation, source (a release build
// module or a local source tree) and flavour. Its Key is derived from content.
type Spec struct {
	Implementation string // "lnd"
	Version        string // release "v0.21.0-beta", or SourceVersion for a source tree
	ModuleDir      string // release: its build module, images/lnd/v0.21.0-beta
	SourceDir      string // source tree: absolute path of the user's clone
	// Revision is the git revision of SourceDir the spec names ("" for the
	// tree as it is) and Commit what it resolved to: a revision builds
	// the commit's content, never the work tree's.
	Revision string
	Commit   gitrev.Commit
	Flavour  Flavour
}

// Flavour is how a build compiles, beyond the fixed Tags: the knobs of a
// node spec (nodespec.Flavour, its fields, their JSON names and its
// validation tables), with the build's methods. The extra tags are added
// to Tags; the C knobs are Core Lightning's (cln.go).
type Flavour nodespec.Flavour

// Validate checks the knobs before anything is built: the spec's checks
// (nodespec.CheckGOAMD64, nodespec.CheckTags) and the PGO profile's content.
func (f Flavour) Validate() error {
	if err := nodespec.CheckGOAMD64(f.GOAMD64); err != nil {
		return err
	}
	if f.PGO != "" {
		if err := checkProfile(f.PGO); err != nil {
			return fmt.Errorf("pgo %q: %v (pass a CPU profile, e.g. one merged by `go tool pprof -proto`)", f.PGO, err)
		}
	}
	return nodespec.CheckTags(f.Tags)
}

// AllTags is Tags plus the flavour's extra tags, sorted and without repeats,
// so the order tags were given in does not change the key.
func (f Flavour) AllTags() []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range append(append([]string(nil), Tags...), f.Tags...) {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return out
}

// extraTags are the flavour's tags that Tags lacks, sorted.
func (f Flavour) extraTags() []string {
	base := map[string]bool{}
	for _, t := range Tags {
		base[t] = true
	}
	var out []string
	for _, t := range f.AllTags() {
		if !base[t] {
			out = append(out, t)
		}
	}
	return out
}

func (f Flavour) goamd64() string {
	if f.GOAMD64 == "" {
		return "v1"
	}
	return f.GOAMD64
}

// String names the non-default knobs, e.g. "pgo=cpu.pprof goamd64=v3".
func (f Flavour) String() string {
	var parts []string
	if f.PGO != "" {
		parts = append(parts, "pgo="+filepath.Base(f.PGO))
	}
	if f.goamd64() != "v1" {
		parts = append(parts, "goamd64="+f.GOAMD64)
	}
	if f.GCFlags != "" {
		parts = append(parts, fmt.Sprintf("gcflags=%q", f.GCFlags))
	}
	if f.LDFlags != "" {
		parts = append(parts, fmt.Sprintf("ldflags=%q", f.LDFlags))
	}
	if t := f.extraTags(); len(t) > 0 {
		parts = append(parts, "tags="+strings.Join(t, ","))
	}
	return strings.Join(append(parts, f.cKnobs()...), " ")
}

// IsSource reports whether the spec builds a local source tree.
func (s Spec) IsSource() bool { return s.SourceDir != "" }

// IsRevision reports whether the spec builds a git revision's content.
func (s Spec) IsRevision() bool { return s.Commit.ID != "" }

// Text is the source as Parse reads it: lnd@v0.21.0-beta, lnd@src:/path
// or lnd@src:/path#rev.
func (s Spec) Text() string {
	if s.IsRevision() {
		return s.Implementation + "@src:" + s.SourceDir + "#" + s.Revision
	}
	if s.IsSource() {
		return s.Implementation + "@src:" + s.SourceDir
	}
	return s.Implementation + "@" + s.Version
}

// String is Text followed by the commit and the flavour's knobs.
func (s Spec) String() string {
	out := s.Text()
	if s.IsRevision() && !strings.HasPrefix(s.Commit.ID, s.Revision) {
		out += " = " + s.Commit.Short
	}
	if f := s.Flavour.String(); f != "" {
		out += " (" + f + ")"
	}
	return out
}

// Parse reads a build spec: "lnd@v0.21.0-beta" (or "lnd/v0.21.0-beta"), a
// release folder under imagesDir, "lnd@src:PATH", a local source tree
// (PATH relative to the working directory), or "lnd@src:PATH#REV", the
// committed content of a git revision of the clone at PATH.
func Parse(imagesDir, text string) (Spec, error) {
	impl, rest, ok := strings.Cut(text, "@")
	if !ok {
		impl, rest, ok = strings.Cut(text, "/")
	}
	if !ok || impl == "" || rest == "" {
		return Spec{}, fmt.Errorf("node build %q: use IMPL@VERSION (lnd@v0.21.0-beta) or IMPL@src:PATH (lnd@src:../lnd)", text)
	}
	if path, isSrc := strings.CutPrefix(rest, "src:"); isSrc {
		if dir, rev, ok := strings.Cut(path, "#"); ok {
			return FromRevision(context.Background(), impl, dir, rev)
		}
		return FromSource(impl, path)
	}
	return Find(imagesDir, impl, rest)
}

// FromSource is the spec of a local source tree of impl at dir.
func FromSource(impl, dir string) (Spec, error) {
	if impl == CLN {
		return clnFromSource(dir)
	}
	mod, ok := modulePaths[impl]
	if !ok {
		return Spec{}, fmt.Errorf("node build %s@src:%s: unknown implementation %q (known: lnd, cln)", impl, dir, impl)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Spec{}, err
	}
	if path, err := treeModulePath(abs); err != nil {
		return Spec{}, fmt.Errorf("node build %s@src:%s: %v (point it at a clone of %s)", impl, dir, err, mod)
	} else if path != mod {
		return Spec{}, fmt.Errorf("node build %s@src:%s: the tree is module %s, not %s", impl, dir, path, mod)
	}
	return Spec{Implementation: impl, Version: SourceVersion, SourceDir: abs}, nil
}

// Specs lists the release build modules under imagesDir/<impl>/<version>.
func Specs(imagesDir string) ([]Spec, error) {
	matches, err := filepath.Glob(filepath.Join(imagesDir, "*", "*", "go.mod"))
	if err != nil {
		return nil, err
	}
	var out []Spec
	for _, m := range matches {
		dir := filepath.Dir(m)
		out = append(out, Spec{Implementation: filepath.Base(filepath.Dir(dir)), Version: filepath.Base(dir), ModuleDir: dir})
	}
	return out, nil
}

// Find returns the spec for impl/version under imagesDir.
func Find(imagesDir, impl, version string) (Spec, error) {
	dir := filepath.Join(imagesDir, impl, version)
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		specs, _ := Specs(imagesDir)
		var have []string
		for _, s := range specs {
			have = append(have, s.Implementation+"/"+s.Version)
		}
		return Spec{}, fmt.Errorf("no build module for %s %s under %s; available: %s (add one with `lnbench build --add-version %s`)", impl, version, imagesDir, strings.Join(have, ", "), version)
	}
	return Spec{Implementation: impl, Version: version, ModuleDir: dir}, nil
}

// checkProfile accepts what go build -pgo reads: a pprof profile or the go
// command's preprocessed "GO PREPROFILE V1" form.
func checkProfile(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return errors.New("not a readable file")
	}
	if bytes.HasPrefix(data, []byte("GO PREPROFILE V1\n")) {
		return nil
	}
	p, err := profile.ParseData(data)
	if err != nil {
		return errors.New("not a pprof profile")
	}
	if len(p.Sample) == 0 {
		return errors.New("the profile has no samples")
	}
	return nil
}
