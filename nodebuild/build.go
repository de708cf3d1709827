// Package nodebuild builds static node binaries into a cache keyed by
// content. A build is a Spec: an implementation, a source (a pinned release
// build module under images/<impl>/<version>/, or a local source tree built
// through a generated module with a replace onto it) and a flavour (PGO
// profile, GOAMD64 level, gcflags, ldflags, extra tags).
package nodebuild

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/lnbench/lnbench/gitrev"
)

// Manifest is written beside the binaries: what they were built from, and
// their checksums so a run detects a corrupt cache.
type Manifest struct {
	Implementation string            `json:"implementation"`
	Version        string            `json:"version"`
	Key            string            `json:"key"`
	GoVersion      string            `json:"go_version"`
	Tags           []string          `json:"tags"`
	SHA256         map[string]string `json:"sha256"`
	// Written since source trees and flavours exist; empty in older manifests.
	ModuleDir string `json:"module_dir,omitempty"`
	SourceDir string `json:"source_dir,omitempty"`
	GitCommit string `json:"git_commit,omitempty"`
	GitDirty  bool   `json:"git_dirty,omitempty"`
	// A build of a git revision (src:PATH#REV): the revision as named and
	// its commit's subject; GitCommit is the commit.
	Revision   string  `json:"revision,omitempty"`
	GitSubject string  `json:"git_subject,omitempty"`
	Flavour    Flavour `json:"flavour"`
	PGOSHA256  string  `json:"pgo_sha256,omitempty"`
	PGOFrom    string  `json:"pgo_from,omitempty"` // the run a merged profile came from (PGOOriginFile)
	// C builds (CLN): the compiler's version line, ./configure's
	// arguments and the version string the node reports.
	Compiler    string   `json:"compiler,omitempty"`
	Configure   []string `json:"configure,omitempty"`
	NodeVersion string   `json:"node_version,omitempty"`
	// A source tree built as a release with its changed files overlaid
	// (overlay.go): the release, and how many files the overlay changes.
	OverlayBase  string    `json:"overlay_base,omitempty"`
	OverlayFiles int       `json:"overlay_files,omitempty"`
	BuiltAt      time.Time `json:"built_at,omitempty"`
	BuildSeconds float64   `json:"build_seconds,omitempty"`
}

// From says what the binaries were built from, in one line.
func (m Manifest) From() string {
	from := m.Implementation + "@" + m.Version
	if m.SourceDir != "" {
		from = m.Implementation + "@src:" + m.SourceDir
		if m.Revision != "" {
			from += "#" + m.Revision + " (commit " + gitrev.ShortID(m.GitCommit) + " " + m.GitSubject + ")"
		} else if m.GitCommit != "" {
			from += " (git " + gitrev.ShortID(m.GitCommit)
			if m.GitDirty {
				from += ", dirty"
			}
			from += ")"
		}
	}
	if f := m.Flavour.String(); f != "" {
		from += " " + f
	}
	return from
}

// PGOOriginFile is where a profile merged from a run's windows says which
// run, windows and actors it holds; a hand-made profile has none.
func PGOOriginFile(profile string) string { return profile + ".from" }

// Result is where a build's binaries are.
type Result struct {
	Dir      string
	Manifest Manifest
	Built    bool // false when the cache was already current
}

// DefaultCacheDir is $LNBENCH_CACHE, else the user cache dir.
func DefaultCacheDir() string {
	if d := os.Getenv("LNBENCH_CACHE"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "lnbench")
	}
	return filepath.Join(os.TempDir(), "lnbench-cache")
}

const (
	manifestFile = "manifest.json"
	lastUsedFile = "last-used" // its mtime is when a run last located the build
)

func binDir(cache string) string { return filepath.Join(cache, "bin") }

func cacheDirFor(cache string, spec Spec, key string) string {
	return filepath.Join(binDir(cache), fmt.Sprintf("%s-%s-%s", spec.Implementation, spec.Version, key))
}

// keyFor is Key with the toolchain `go` selects for spec.
func keyFor(ctx context.Context, spec Spec) (string, string, error) {
	if err := spec.Flavour.Validate(); err != nil {
		return "", "", err
	}
	if spec.Implementation == CLN {
		tc, err := clnToolchain(ctx, spec.Flavour)
		if err != nil {
			return "", "", err
		}
		key, err := clnKey(ctx, spec, tc)
		return key, tc, err
	}
	var tc string
	var err error
	if spec.IsRevision() {
		tc, err = revisionToolchain(ctx, spec)
	} else {
		tc, err = Toolchain(ctx, toolchainDir(spec))
	}
	if err != nil {
		return "", "", err
	}
	key, err := Key(spec, tc)
	return key, tc, err
}

// Locate returns the cached binaries for spec, checking them against their
// manifest and marking the build as used; the error tells the user how to
// build it.
func Locate(cache string, spec Spec) (Result, error) {
	r, err := Peek(cache, spec)
	if err == nil {
		markUsed(r.Dir)
	}
	return r, err
}

// Peek is Locate without recording a use (for --dry-run and listings).
func Peek(cache string, spec Spec) (Result, error) {
	key, _, err := keyFor(context.Background(), spec)
	if err != nil {
		return Result{}, err
	}
	dir := cacheDirFor(cache, spec, key)
	m, err := verify(dir)
	if err != nil {
		return Result{}, fmt.Errorf("node binaries for %s in %s: %v; run `lnbench build --version %s` (or ./run.sh) to build them", spec, dir, err, spec.Text())
	}
	return Result{Dir: dir, Manifest: m}, nil
}

func markUsed(dir string) {
	now := time.Now()
	p := filepath.Join(dir, lastUsedFile)
	if err := os.Chtimes(p, now, now); err != nil {
		os.WriteFile(p, nil, 0o644)
	}
}

func readManifest(dir string) (Manifest, error) {
	var m Manifest
	data, err := os.ReadFile(filepath.Join(dir, manifestFile))
	if errors.Is(err, os.ErrNotExist) {
		return m, errors.New("not built yet")
	}
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return m, fmt.Errorf("corrupt manifest: %v", err)
	}
	return m, nil
}

func verify(dir string) (Manifest, error) {
	m, err := readManifest(dir)
	if err != nil {
		return m, err
	}
	if m.Implementation == CLN {
		return m, verifyFiles(dir, m)
	}
	for name := range Packages {
		sum, err := fileSHA256(filepath.Join(dir, name))
		if err != nil {
			return m, fmt.Errorf("missing binary %s", name)
		}
		if sum != m.SHA256[name] {
			return m, fmt.Errorf("corrupt binary %s (checksum differs from manifest)", name)
		}
	}
	return m, nil
}

func binaryNames() []string {
	names := make([]string, 0, len(Packages))
	for n := range Packages {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Ensure builds spec into the cache unless a verified build is already
// there. Work happens in a temporary folder beside the cache entry, which
// also holds the go command's GOTMPDIR; it is removed whether the build
// succeeds, fails or is interrupted (ctx cancelled: the error then wraps
// context.Canceled and no compiler keeps running).
func Ensure(ctx context.Context, cache string, spec Spec, log io.Writer) (Result, error) {
	if log == nil {
		log = io.Discard
	}
	if r, err := Locate(cache, spec); err == nil {
		return r, nil
	}
	key, toolchain, err := keyFor(ctx, spec)
	if err != nil {
		return Result{}, err
	}
	if spec.Implementation == CLN {
		return ensureCLN(ctx, cache, spec, key, toolchain, log)
	}
	start := time.Now()
	dir := cacheDirFor(cache, spec, key)
	work, err := newWorkDir(cache)
	if err != nil {
		return Result{}, err
	}
	defer os.RemoveAll(work)
	out, gotmp := filepath.Join(work, "out"), filepath.Join(work, "gotmp")
	for _, d := range []string{out, gotmp} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return Result{}, err
		}
	}
	env := []string{"CGO_ENABLED=0", "GOTMPDIR=" + gotmp, "GOAMD64=" + spec.Flavour.goamd64(), "GOFLAGS="}

	moduleDir := spec.ModuleDir
	var (
		base         overlayBase
		ok           bool
		overlayFlags []string
	)
	tree := spec
	if spec.IsSource() {
		if spec.IsRevision() {
			if tree, err = exportRevision(ctx, spec, filepath.Join(work, "tree"), log); err != nil {
				return Result{}, err
			}
		}
		moduleDir = filepath.Join(work, "module")
		if base, ok, err = overlayBaseFor(ctx, tree); err != nil {
			return Result{}, err
		}
		if ok {
			overlayFlags, err = prepareOverlayBuild(ctx, tree, base, moduleDir, env, log)
		} else {
			err = prepareSourceModule(ctx, tree, moduleDir, env, log)
		}
		if err != nil {
			return Result{}, err
		}
	}
	fmt.Fprintf(log, "building %s (static, tags %s) into %s\n", spec, strings.Join(spec.Flavour.AllTags(), ","), dir)
	var output bytes.Buffer
	err = runCommand(ctx, command{Dir: moduleDir, Env: env, Log: io.MultiWriter(log, &output), Name: "go", Args: buildArgs(spec.Flavour, overlayFlags, out)})
	if err != nil && ok && strings.Contains(output.String(), "-mod=vendor") {
		// The edit imports a package of another module that the release's
		// binaries do not, so vendoring left it out: build the tree as is.
		fmt.Fprintf(log, "the overlay lacks a package the release does not use; building %s through a replace onto the tree\n", tree.SourceDir)
		ok, moduleDir = false, filepath.Join(work, "module-tree")
		if err = prepareSourceModule(ctx, tree, moduleDir, env, log); err == nil {
			err = runCommand(ctx, command{Dir: moduleDir, Env: env, Log: log, Name: "go", Args: buildArgs(spec.Flavour, nil, out)})
		}
	}
	if err != nil {
		return Result{}, err
	}
	m, err := manifestFor(ctx, spec, key, toolchain, out)
	if err != nil {
		return Result{}, err
	}
	if ok {
		m.OverlayBase, m.OverlayFiles = base.Version, base.Files()
	}
	m.BuiltAt = time.Now().UTC()
	m.BuildSeconds = time.Since(start).Seconds()
	data, _ := json.MarshalIndent(m, "", "  ")
	if err := os.WriteFile(filepath.Join(out, manifestFile), data, 0o644); err != nil {
		return Result{}, err
	}
	os.RemoveAll(dir) // a corrupt previous build
	if err := os.Rename(out, dir); err != nil {
		return Result{}, fmt.Errorf("installing build into cache: %v", err)
	}
	markUsed(dir)
	return Result{Dir: dir, Manifest: m, Built: true}, nil
}

// buildArgs is go build's command line; extra are the flags of a tree
// built as a release (overlay.go).
func buildArgs(f Flavour, extra []string, out string) []string {
	args := append([]string{"build", "-trimpath", "-tags", strings.Join(f.AllTags(), " ")}, extra...)
	if f.PGO != "" {
		abs, _ := filepath.Abs(f.PGO)
		args = append(args, "-pgo="+abs)
	}
	if f.GCFlags != "" {
		args = append(args, "-gcflags="+f.GCFlags)
	}
	if f.LDFlags != "" {
		args = append(args, "-ldflags="+f.LDFlags)
	}
	args = append(args, "-o", out+string(os.PathSeparator))
	for _, n := range binaryNames() {
		args = append(args, Packages[n])
	}
	return args
}

// prepareSourceModule writes the generated build module of a source tree
// and resolves its requirements (the tree's go.sum is the starting point).
func prepareSourceModule(ctx context.Context, spec Spec, dir string, env []string, log io.Writer) error {
	text, err := sourceModule(spec)
	if err != nil {
		return err
	}
	if err := writeBuildModule(spec, dir, text); err != nil {
		return err
	}
	fmt.Fprintf(log, "resolving the build module of %s (go mod tidy)\n", spec.SourceDir)
	return runCommand(ctx, command{Dir: dir, Env: env, Log: log, Name: "go", Args: []string{"mod", "tidy"}, Quiet: true})
}

// writeBuildModule makes dir a build module of the source tree spec: the
// go.mod text, and the tree's go.sum as the starting point.
func writeBuildModule(spec Spec, dir, goMod string) error {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(goMod), 0o644); err != nil {
		return err
	}
	if sum, err := os.ReadFile(filepath.Join(spec.SourceDir, "go.sum")); err == nil {
		return os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644)
	}
	return nil
}

func manifestFor(ctx context.Context, spec Spec, key, toolchain, out string) (Manifest, error) {
	m := Manifest{Implementation: spec.Implementation, Version: spec.Version, Key: key,
		GoVersion: toolchain, Tags: spec.Flavour.AllTags(), SHA256: map[string]string{},
		ModuleDir: spec.ModuleDir, SourceDir: spec.SourceDir, Flavour: spec.Flavour}
	if spec.Flavour.PGO != "" {
		m.Flavour.PGO, _ = filepath.Abs(spec.Flavour.PGO)
		m.PGOSHA256, _ = fileSHA256(spec.Flavour.PGO)
		if origin, err := os.ReadFile(PGOOriginFile(spec.Flavour.PGO)); err == nil {
			m.PGOFrom = strings.TrimSpace(string(origin))
		}
	}
	setGitFacts(ctx, &m, spec)
	for _, n := range binaryNames() {
		sum, err := fileSHA256(filepath.Join(out, n))
		if err != nil {
			return m, fmt.Errorf("build produced no %s: %v", n, err)
		}
		m.SHA256[n] = sum
	}
	return m, nil
}

// setGitFacts records where a source build's content came from: the
// revision's commit, or the tree's HEAD and whether it had edits.
func setGitFacts(ctx context.Context, m *Manifest, spec Spec) {
	switch {
	case spec.IsRevision():
		m.GitCommit, m.GitSubject, m.Revision = spec.Commit.ID, spec.Commit.Subject, spec.Revision
	case spec.IsSource() && !isTarball(spec.SourceDir):
		m.GitCommit, m.GitDirty = gitState(ctx, spec.SourceDir)
	}
}

// gitState is the tree's HEAD commit and whether it has uncommitted edits;
// empty when the tree is not a git checkout.
func gitState(ctx context.Context, dir string) (string, bool) {
	out, err := exec.CommandContext(ctx, "git", "-C", dir, "rev-parse", "--show-toplevel", "HEAD").Output()
	lines := strings.Fields(string(out))
	if err != nil || len(lines) != 2 || !sameDir(lines[0], dir) {
		return "", false // not a checkout, or a folder inside another repository
	}
	head := lines[1]
	status, err := exec.CommandContext(ctx, "git", "-C", dir, "status", "--porcelain").Output()
	return head, err == nil && len(strings.TrimSpace(string(status))) > 0
}

func sameDir(a, b string) bool {
	ra, errA := filepath.EvalSymlinks(a)
	rb, errB := filepath.EvalSymlinks(b)
	return errA == nil && errB == nil && ra == rb
}

// newWorkDir makes a build's work folder beside the cache entries, so that
// the result is renamed into place on the same file system.
func newWorkDir(cache string) (string, error) {
	if err := os.MkdirAll(binDir(cache), 0o755); err != nil {
		return "", fmt.Errorf("cache dir: %v", err)
	}
	work, err := os.MkdirTemp(binDir(cache), ".build-")
	if err != nil {
		return "", fmt.Errorf("cache dir: %v", err)
	}
	return work, nil
}
