package nodebuild

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/lnbench/lnbench/gitrev"
	"github.com/lnbench/lnbench/internal/lines"
)

// ensureCLN builds a CLN tree in a copy (extracted, for a tarball) beside
// the cache entry and installs it there as bin/ and libexec/c-lightning/.
// make's output goes to build.log in the work folder; its tail is in the
// error when a step fails.
func ensureCLN(ctx context.Context, cache string, spec Spec, key, toolchain string, log io.Writer) (Result, error) {
	if err := ensureCLNPackages(ctx, log); err != nil {
		return Result{}, err
	}
	start := time.Now()
	dir := cacheDirFor(cache, spec, key)
	work, err := newWorkDir(cache)
	if err != nil {
		return Result{}, err
	}
	defer os.RemoveAll(work)
	src, out := filepath.Join(work, "src"), filepath.Join(work, "out")
	if err := os.Mkdir(src, 0o755); err != nil {
		return Result{}, err
	}
	if err := clnSourceCopy(ctx, spec, src); err != nil {
		return Result{}, err
	}
	var version string
	if spec.IsRevision() {
		// The commit's own describe; the clone's HEAD is not what is built.
		if version = gitrev.Describe(ctx, spec.SourceDir, spec.Commit.ID); version == "" {
			version = clnVersion(ctx, src, src)
		}
	} else {
		version = clnVersion(ctx, spec.SourceDir, src)
	}
	logPath := filepath.Join(work, "build.log")
	buildLog, err := os.Create(logPath)
	if err != nil {
		return Result{}, err
	}
	defer buildLog.Close()
	jobs := strconv.Itoa(runtime.NumCPU())
	fmt.Fprintf(log, "building %s (CLN %s, %s, make -j%s; a few minutes) into %s\n", spec, version, toolchain, jobs, dir)
	env := append(clnBuildEnv(), "VERSION="+version)
	steps := []command{
		{Name: "./configure", Args: configureArgs(spec.Flavour)},
		{Name: "make", Args: []string{"-j" + jobs, "all-programs"}},
		{Name: "make", Args: []string{"install", "DESTDIR=" + out, "PREFIX=/"}},
	}
	for i, c := range steps {
		c.Dir, c.Env, c.Log = src, env, buildLog
		if err := run(ctx, c); err != nil {
			data, _ := os.ReadFile(logPath)
			return Result{}, fmt.Errorf("%w\nthe build log ends:\n%s", err, lines.Last(string(data), 15))
		}
		if i == 0 {
			if err := configuredWithPostgres(src); err != nil {
				return Result{}, err
			}
		}
	}
	m, err := clnManifest(ctx, spec, key, toolchain, out)
	if err != nil {
		return Result{}, err
	}
	if m.NodeVersion = clnVersionOf(ctx, out); m.NodeVersion == "" {
		m.NodeVersion = version
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
	fmt.Fprintf(log, "built %s in %.0fs\n", spec, m.BuildSeconds)
	return Result{Dir: dir, Manifest: m, Built: true}, nil
}

// clnSourceCopy fills src with the tree's files, or the tarball's.
func clnSourceCopy(ctx context.Context, spec Spec, src string) error {
	if spec.IsRevision() {
		return gitrev.Export(ctx, spec.SourceDir, spec.Commit.ID, src)
	}
	if isTarball(spec.SourceDir) {
		return run(ctx, command{Dir: src, Log: io.Discard, Name: "tar",
			Args: []string{"-xf", spec.SourceDir, "-C", src, "--strip-components=1"}})
	}
	files, err := treeFiles(ctx, spec.SourceDir)
	if err != nil {
		return err
	}
	return copyTree(spec.SourceDir, src, files)
}

// clnManifest records every installed file's checksum by relative path.
func clnManifest(ctx context.Context, spec Spec, key, toolchain, out string) (Manifest, error) {
	m := Manifest{Implementation: spec.Implementation, Version: spec.Version, Key: key,
		Compiler: toolchain, SHA256: map[string]string{}, SourceDir: spec.SourceDir, Flavour: spec.Flavour,
		Configure: configureArgs(spec.Flavour)}
	setGitFacts(ctx, &m, spec)
	err := filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, _ := filepath.Rel(out, path)
		if !strings.HasPrefix(rel, "bin/") && !strings.HasPrefix(rel, "libexec/") {
			return nil // man pages, headers
		}
		m.SHA256[rel], err = fileSHA256(path)
		return err
	})
	if err != nil {
		return m, err
	}
	if _, ok := m.SHA256[clnLightningd]; !ok {
		return m, fmt.Errorf("the build installed no %s", clnLightningd)
	}
	return m, nil
}

// verifyFiles checks every file the manifest lists (a CLN build's).
func verifyFiles(dir string, m Manifest) error {
	if _, ok := m.SHA256[clnLightningd]; !ok {
		return fmt.Errorf("corrupt manifest: no %s", clnLightningd)
	}
	for rel, want := range m.SHA256 {
		sum, err := fileSHA256(filepath.Join(dir, rel))
		if err != nil {
			return fmt.Errorf("missing binary %s", rel)
		}
		if sum != want {
			return fmt.Errorf("corrupt binary %s (checksum differs from manifest)", rel)
		}
	}
	return nil
}

// BinDir is where a build's executables are: the cache entry itself for
// LND, its bin/ for CLN (whose subdaemons are in ../libexec).
func (r Result) BinDir() string {
	if r.Manifest.Implementation == CLN {
		return filepath.Join(r.Dir, "bin")
	}
	return r.Dir
}

// clnVersionOf asks an installed lightningd for its version.
func clnVersionOf(ctx context.Context, dir string) string {
	out, _ := exec.CommandContext(ctx, filepath.Join(dir, clnLightningd), "--version").Output()
	return strings.TrimSpace(string(out))
}

// configuredWithPostgres checks that ./configure found libpq: the key
// promises a lightningd that runs on PostgreSQL (db=postgres), and a build
// without it would be cached under that key.
func configuredWithPostgres(src string) error {
	data, err := os.ReadFile(filepath.Join(src, "config.vars"))
	if err != nil {
		return fmt.Errorf("./configure left no config.vars: %v", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "HAVE_POSTGRES=1" {
			return nil
		}
	}
	return fmt.Errorf("./configure did not find PostgreSQL's client library (config.vars has no HAVE_POSTGRES=1): install libpq-dev (apt-get install libpq-dev) and rebuild")
}
