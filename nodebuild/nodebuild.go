// Package nodebuild builds static node binaries from a pinned build module
// (images/<impl>/<version>/) into a cache keyed by that module's content.
package nodebuild

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
)

// Tags are LND's RPC sub-servers plus the pure-Go SQLite backend.
var Tags = []string{"signrpc", "walletrpc", "chainrpc", "invoicesrpc", "routerrpc", "peersrpc", "kvdb_sqlite"}

// Packages are the binaries one LND build module yields, by file name.
var Packages = map[string]string{
	"lnd":    "github.com/lightningnetwork/lnd/cmd/lnd",
	"lncli":  "github.com/lightningnetwork/lnd/cmd/lncli",
	"btcd":   "github.com/btcsuite/btcd",
	"btcctl": "github.com/btcsuite/btcd/cmd/btcctl",
}

// Spec names one build: an implementation version and its build module.
type Spec struct {
	Implementation string // "lnd"
	Version        string // "v0.21.0-beta"
	ModuleDir      string // images/lnd/v0.21.0-beta
}

// Manifest is written beside the binaries; it lets a run detect a corrupt cache.
type Manifest struct {
	Implementation string            `json:"implementation"`
	Version        string            `json:"version"`
	Key            string            `json:"key"`
	GoVersion      string            `json:"go_version"`
	Tags           []string          `json:"tags"`
	SHA256         map[string]string `json:"sha256"`
}

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

// Key hashes what decides the binaries: the build module's go.mod and go.sum,
// the tags, the Go toolchain and the target platform.
func Key(spec Spec) (string, error) {
	h := sha256.New()
	for _, f := range []string{"go.mod", "go.sum"} {
		data, err := os.ReadFile(filepath.Join(spec.ModuleDir, f))
		if err != nil {
			return "", fmt.Errorf("build module %s: %v (is --images pointing at the repo's images/ folder?)", spec.ModuleDir, err)
		}
		fmt.Fprintf(h, "%s\n%d\n", f, len(data))
		h.Write(data)
	}
	fmt.Fprintf(h, "tags=%s go=%s %s/%s cgo=0", strings.Join(Tags, ","), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

func cacheDirFor(cache string, spec Spec, key string) string {
	return filepath.Join(cache, "bin", fmt.Sprintf("%s-%s-%s", spec.Implementation, spec.Version, key))
}

// Locate returns the cached binaries for spec, checking them against their
// manifest; the error tells the user to run `lnbench build`.
func Locate(cache string, spec Spec) (Result, error) {
	key, err := Key(spec)
	if err != nil {
		return Result{}, err
	}
	dir := cacheDirFor(cache, spec, key)
	m, err := verify(dir)
	if err != nil {
		return Result{}, fmt.Errorf("node binaries for %s %s in %s: %v; run `lnbench build` (or ./run.sh) to rebuild", spec.Implementation, spec.Version, dir, err)
	}
	return Result{Dir: dir, Manifest: m}, nil
}

func verify(dir string) (Manifest, error) {
	var m Manifest
	data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if errors.Is(err, os.ErrNotExist) {
		return m, errors.New("not built yet")
	}
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return m, fmt.Errorf("corrupt manifest: %v", err)
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

// Ensure builds spec into the cache unless a verified build is already there.
func Ensure(ctx context.Context, cache string, spec Spec, log io.Writer) (Result, error) {
	if r, err := Locate(cache, spec); err == nil {
		return r, nil
	}
	key, err := Key(spec)
	if err != nil {
		return Result{}, err
	}
	dir := cacheDirFor(cache, spec, key)
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return Result{}, fmt.Errorf("cache dir: %v", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".build-")
	if err != nil {
		return Result{}, fmt.Errorf("cache dir: %v", err)
	}
	defer os.RemoveAll(tmp)

	names := make([]string, 0, len(Packages))
	for n := range Packages {
		names = append(names, n)
	}
	sort.Strings(names)
	args := []string{"build", "-trimpath", "-tags", strings.Join(Tags, " "), "-o", tmp + string(os.PathSeparator)}
	for _, n := range names {
		args = append(args, Packages[n])
	}
	fmt.Fprintf(log, "building %s %s (static, tags %s) into %s\n", spec.Implementation, spec.Version, strings.Join(Tags, ","), dir)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = spec.ModuleDir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		return Result{}, fmt.Errorf("go build in %s failed: %v", spec.ModuleDir, err)
	}
	m := Manifest{Implementation: spec.Implementation, Version: spec.Version, Key: key,
		GoVersion: runtime.Version(), Tags: Tags, SHA256: map[string]string{}}
	for _, n := range names {
		if m.SHA256[n], err = fileSHA256(filepath.Join(tmp, n)); err != nil {
			return Result{}, fmt.Errorf("build produced no %s: %v", n, err)
		}
	}
	data, _ := json.MarshalIndent(m, "", "  ")
	if err := os.WriteFile(filepath.Join(tmp, "manifest.json"), data, 0o644); err != nil {
		return Result{}, err
	}
	os.RemoveAll(dir) // a corrupt previous build
	if err := os.Rename(tmp, dir); err != nil {
		return Result{}, fmt.Errorf("installing build into cache: %v", err)
	}
	return Result{Dir: dir, Manifest: m, Built: true}, nil
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

// Specs lists the build modules under imagesDir/<impl>/<version>.
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
		return Spec{}, fmt.Errorf("no build module for %s %s under %s; available: %s (add a folder %s to add a version)", impl, version, imagesDir, strings.Join(have, ", "), dir)
	}
	return Spec{Implementation: impl, Version: version, ModuleDir: dir}, nil
}
