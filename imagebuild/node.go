package imagebuild

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	fragments "github.com/lnbench/lnbench/docker-fragments"
	"github.com/lnbench/lnbench/internal/fileutil"
	"github.com/lnbench/lnbench/internal/lines"
	"github.com/lnbench/lnbench/nodebuild"
)

// DockerfilePath is where the node image's Dockerfile of impl lives in the
// repository's images/ folder.
func DockerfilePath(imagesDir, impl string) string {
	return filepath.Join(imagesDir, impl, "Dockerfile")
}

func readDockerfile(path string) ([]byte, error) {
	if path == "" {
		return nil, errors.New("no node Dockerfile given (images/lnd/Dockerfile of the repository; pass --images DIR when running elsewhere)")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("node Dockerfile: %v (pass --images pointing at the repository's images/ folder)", err)
	}
	if !bytes.Contains(data, []byte("ARG BASE")) {
		return nil, fmt.Errorf("node Dockerfile %s: it must declare ARG BASE and start FROM ${BASE} (the Debian base lnbench builds)", path)
	}
	return data, nil
}

type script struct {
	name string
	data []byte
}

func loadScripts(fsys fs.FS) ([]script, error) {
	if fsys == nil {
		sub, err := fs.Sub(fragments.FS, "scripts")
		if err != nil {
			return nil, err
		}
		fsys = sub
	}
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("scripts: %v", err)
	}
	var out []script
	for _, e := range entries {
		if e.IsDir() || strings.HasPrefix(strings.ToUpper(e.Name()), "README") {
			continue
		}
		data, err := fs.ReadFile(fsys, e.Name())
		if err != nil {
			return nil, err
		}
		out = append(out, script{e.Name(), data})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

// NodeTag is the node image's tag: version plus a hash of the base tag, the
// build key, the binaries' checksums, the scripts and the Dockerfile.
func NodeTag(base string, m nodebuild.Manifest, scripts []script, dockerfile []byte) string {
	h := sha256.New()
	fmt.Fprintf(h, "base=%s\nimpl=%s\nversion=%s\nkey=%s\n", base, m.Implementation, m.Version, m.Key)
	for _, name := range manifestFiles(m) {
		fmt.Fprintf(h, "bin %s %s\n", name, m.SHA256[name])
	}
	for _, s := range scripts {
		sum := sha256.Sum256(s.data)
		fmt.Fprintf(h, "script %s %x\n", s.name, sum)
	}
	fmt.Fprintf(h, "dockerfile %d\n", len(dockerfile))
	h.Write(dockerfile)
	return fmt.Sprintf("%s:%s-%s", nodeRepo(m.Implementation), m.Version, hex.EncodeToString(h.Sum(nil))[:12])
}

// nodeRepo is the image name of an implementation's builds: lnbench/lnd,
// lnbench/cln.
func nodeRepo(impl string) string {
	if impl == "" || impl == "lnd" {
		return NodeRepo
	}
	return "lnbench/" + impl
}

// manifestFiles are the build's files, sorted: an LND build's binary names,
// a CLN build's paths under bin/ and libexec/.
func manifestFiles(m nodebuild.Manifest) []string {
	names := make([]string, 0, len(m.SHA256))
	for n := range m.SHA256 {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// contextPath is where a build's file goes in the image context: a bare
// binary name (LND's) under bin/, a relative path (CLN's bin/…,
// libexec/c-lightning/…) as it is, for the Dockerfile to COPY.
func contextPath(ctxDir, name string) string {
	if !strings.Contains(name, "/") {
		return filepath.Join(ctxDir, "bin", name)
	}
	return filepath.Join(ctxDir, filepath.FromSlash(name))
}

// EnsureNode builds the node image FROM base for the binaries in bins
// unless it exists.
func EnsureNode(ctx context.Context, opts Options, base string, bins nodebuild.Result) (Result, error) {
	start := time.Now()
	scripts, err := loadScripts(opts.Scripts)
	if err != nil {
		return Result{}, err
	}
	if bins.Manifest.Version == "" || len(bins.Manifest.SHA256) == 0 {
		return Result{}, fmt.Errorf("node binaries in %q have no manifest; run `lnbench build`", bins.Dir)
	}
	dockerfile, err := readDockerfile(opts.Dockerfile)
	if err != nil {
		return Result{}, err
	}
	tag := NodeTag(base, bins.Manifest, scripts, dockerfile)
	if id, ok := ImageID(ctx, tag); ok {
		return Result{Tag: tag, ID: id, Duration: time.Since(start)}, nil
	}
	// The context sits beside the cache so the binaries can be hard-linked.
	ctxDir, err := os.MkdirTemp(filepath.Dir(bins.Dir), ".image-")
	if err != nil {
		if ctxDir, err = os.MkdirTemp("", "lnbench-image-"); err != nil {
			return Result{}, err
		}
	}
	defer os.RemoveAll(ctxDir)
	binDir := filepath.Join(ctxDir, "bin")
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		return Result{}, err
	}
	for _, n := range manifestFiles(bins.Manifest) {
		dst := contextPath(ctxDir, n)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return Result{}, err
		}
		if err := linkOrCopy(filepath.Join(bins.Dir, filepath.FromSlash(n)), dst); err != nil {
			return Result{}, fmt.Errorf("image context: %v", err)
		}
	}
	for _, s := range scripts {
		if err := os.WriteFile(filepath.Join(binDir, path.Base(s.name)), s.data, 0o755); err != nil {
			return Result{}, err
		}
	}
	if err := os.WriteFile(filepath.Join(ctxDir, "Dockerfile"), dockerfile, 0o644); err != nil {
		return Result{}, err
	}
	fmt.Fprintf(opts.log(), "building %s FROM %s\n", tag, base)
	if err := dockerBuild(ctx, tag, ctxDir, "--label", "lnbench.implementation="+bins.Manifest.Implementation,
		"--label", "lnbench.version="+bins.Manifest.Version, "--label", BuildKeyLabel+"="+bins.Manifest.Key,
		"--build-arg", "BASE="+base); err != nil {
		return Result{}, err
	}
	r := built(ctx, tag, start)
	fmt.Fprintf(opts.log(), "built %s in %.1fs\n", tag, r.Duration.Seconds())
	return r, nil
}

// dockerBuild builds the context dir as tag, labelled as lnbench's with
// the further args; the error carries the build's last lines.
func dockerBuild(ctx context.Context, tag, dir string, args ...string) error {
	full := append(append([]string{"build", "--quiet", "--label", Label + "=1"}, args...), "-t", tag, dir)
	cmd := exec.CommandContext(ctx, "docker", full...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("docker build %s failed: %v:\n%s", tag, err, lines.Indent(lines.Last(out.String(), 10)))
	}
	return nil
}

// built is the Result of an image just built, started at start.
func built(ctx context.Context, tag string, start time.Time) Result {
	id, _ := ImageID(ctx, tag)
	return Result{Tag: tag, ID: id, Built: true, Duration: time.Since(start)}
}

func linkOrCopy(src, dst string) error {
	if err := os.Link(src, dst); err == nil {
		return nil
	}
	return fileutil.Copy(src, dst, 0o755)
}
