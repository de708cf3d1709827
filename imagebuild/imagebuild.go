// Package imagebuild builds the Docker images the compose backend runs, with no
// container registry: a Debian base made by debootstrap and `docker import`,
// and a node image FROM it holding lnd, lncli, btcd and btcctl from the
// nodebuild cache plus the scripts of docker-fragments/scripts.
//
// One node image serves both roles (lnd actors and the btcd chain run from
// it with different entrypoints): btcd is built by the same build module as
// lnd and is ≈18 MB, so a separate image would save nothing and add a tag to
// keep in step.
//
// Every tag is a hash of what decides the image, so an image that exists is
// current and a second call only runs `docker image inspect`. Images carry
// the label lnbench.image=1 and never lnbench.run: runs share them, and
// `lnbench down` leaves them alone.
package imagebuild

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/lnbench/lnbench/internal/lines"
	"github.com/lnbench/lnbench/nodebuild"
)

const (
	// Label marks every image lnbench builds.
	Label = "lnbench.image"
	// BaseRepo and NodeRepo are the image names (a CLN build's is
	// lnbench/cln); tags are content hashes.
	BaseRepo = "lnbench/base"
	NodeRepo = "lnbench/lnd"
	// Suite and Variant are what debootstrap installs.
	Suite   = "bookworm"
	Variant = "minbase"
	// trimVersion changes when trimRootfs removes different files.
	trimVersion = "1"
)

// BasePackages are installed on top of minbase: a shell and the tools the
// sidecar scripts use.
var BasePackages = []string{"bash", "socat", "iproute2", "iptables", "procps", "curl", "ca-certificates"}

// Options configure image builds.
type Options struct {
	Log io.Writer // progress lines; nil discards
	// Mirror overrides the Debian mirror read from the host's apt sources.
	Mirror string
	// Scripts is copied into /usr/local/bin of the node image; nil means the
	// embedded docker-fragments/scripts.
	Scripts fs.FS
	// Dockerfile is the node image's recipe, images/<impl>/Dockerfile of the
	// repository (see DockerfilePath); built with --build-arg BASE=<base tag>.
	Dockerfile string
}

// Result is one ensured image.
type Result struct {
	Tag      string
	ID       string // the engine's image id (sha256:…), for the report's environment block
	Built    bool   // false when it already existed
	Duration time.Duration
}

func (o Options) log() io.Writer {
	if o.Log == nil {
		return io.Discard
	}
	return o.Log
}

// Ensure makes sure the base image and the node image for bins exist.
func Ensure(ctx context.Context, opts Options, bins nodebuild.Result) (base, node Result, err error) {
	base, err = EnsureBase(ctx, opts)
	if err != nil {
		return base, node, err
	}
	node, err = EnsureNode(ctx, opts, base.Tag, bins)
	return base, node, err
}

// ImageID is the engine's id of the image tag, if it has it.
func ImageID(ctx context.Context, tag string) (string, bool) {
	out, err := exec.CommandContext(ctx, "docker", "image", "inspect", "--format", "{{.Id}}", tag).Output()
	if err != nil {
		return "", false
	}
	return strings.TrimSpace(string(out)), true
}

// BaseTag is the base image's tag for a debootstrap version: a hash of the
// package list, suite, variant, trimming and architecture.
func BaseTag(debootstrapVersion string) string {
	h := sha256.New()
	pkgs := append([]string(nil), BasePackages...)
	sort.Strings(pkgs)
	fmt.Fprintf(h, "suite=%s\nvariant=%s\npackages=%s\ndebootstrap=%s\ntrim=%s\narch=%s\n",
		Suite, Variant, strings.Join(pkgs, ","), debootstrapVersion, trimVersion, runtime.GOARCH)
	return BaseRepo + ":" + hex.EncodeToString(h.Sum(nil))[:16]
}

// EnsureBase builds the Debian base image unless it exists.
func EnsureBase(ctx context.Context, opts Options) (Result, error) {
	start := time.Now()
	bin, err := debootstrap(ctx, opts.log())
	if err != nil {
		return Result{}, err
	}
	ver, err := debootstrapVersion(ctx, bin)
	if err != nil {
		return Result{}, err
	}
	tag := BaseTag(ver)
	if id, ok := ImageID(ctx, tag); ok {
		return Result{Tag: tag, ID: id, Duration: time.Since(start)}, nil
	}
	if os.Geteuid() != 0 {
		return Result{}, errors.New("building the base image needs root (debootstrap chroots): run `sudo lnbench images` once")
	}
	mirror := opts.Mirror
	if mirror == "" {
		if mirror, err = HostMirror(); err != nil {
			return Result{}, err
		}
	}
	tmp, err := os.MkdirTemp("", "lnbench-rootfs-")
	if err != nil {
		return Result{}, err
	}
	defer os.RemoveAll(tmp)
	root := filepath.Join(tmp, "rootfs")
	fmt.Fprintf(opts.log(), "building %s: debootstrap %s %s from %s (about 30-60 s)\n", tag, Suite, Variant, mirror)
	logPath := filepath.Join(tmp, "debootstrap.log")
	logf, err := os.Create(logPath)
	if err != nil {
		return Result{}, err
	}
	cmd := exec.CommandContext(ctx, bin, "--variant="+Variant, "--include="+strings.Join(BasePackages, ","), Suite, root, mirror)
	cmd.Stdout, cmd.Stderr = logf, logf
	err = cmd.Run()
	logf.Close()
	if err != nil {
		return Result{}, fmt.Errorf("debootstrap %s from %s failed: %v; last lines:\n%s", Suite, mirror, err, lines.LogTail(logPath, 10))
	}
	if err := trimRootfs(root); err != nil {
		return Result{}, fmt.Errorf("trimming the rootfs: %v", err)
	}
	if err := importRootfs(ctx, root, tag); err != nil {
		return Result{}, err
	}
	d := time.Since(start)
	fmt.Fprintf(opts.log(), "built %s in %.1fs\n", tag, d.Seconds())
	id, _ := ImageID(ctx, tag)
	return Result{Tag: tag, ID: id, Built: true, Duration: d}, nil
}

// debootstrap finds debootstrap, installing it with apt-get when it is
// missing and we are root on a Debian-like host.
func debootstrap(ctx context.Context, log io.Writer) (string, error) {
	find := func() (string, error) {
		if p, err := exec.LookPath("debootstrap"); err == nil {
			return p, nil
		}
		for _, p := range []string{"/usr/sbin/debootstrap", "/sbin/debootstrap"} {
			if _, err := os.Stat(p); err == nil {
				return p, nil
			}
		}
		return "", errors.New("not found")
	}
	if p, err := find(); err == nil {
		return p, nil
	}
	const fix = "debootstrap is not installed; install it with `apt-get install debootstrap` and rerun"
	if _, err := exec.LookPath("apt-get"); err != nil || os.Geteuid() != 0 {
		return "", errors.New(fix)
	}
	fmt.Fprintln(log, "installing debootstrap with apt-get")
	install := func() error {
		c := exec.CommandContext(ctx, "apt-get", "install", "-y", "-qq", "--no-install-recommends", "debootstrap")
		c.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		out, err := c.CombinedOutput()
		if err != nil {
			return fmt.Errorf("%v: %s", err, lines.Last(strings.TrimSpace(string(out)), 1))
		}
		return nil
	}
	if err := install(); err != nil {
		if out, uerr := exec.CommandContext(ctx, "apt-get", "update", "-qq").CombinedOutput(); uerr != nil {
			return "", fmt.Errorf("%s (apt-get update: %v: %s)", fix, uerr, lines.Last(strings.TrimSpace(string(out)), 1))
		}
		if err := install(); err != nil {
			return "", fmt.Errorf("%s (apt-get install: %v)", fix, err)
		}
	}
	return find()
}

func debootstrapVersion(ctx context.Context, bin string) (string, error) {
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %v", bin, err)
	}
	v := strings.TrimSpace(string(out))
	v = strings.TrimPrefix(v, "debootstrap ")
	if v == "" {
		return "", fmt.Errorf("%s --version printed nothing", bin)
	}
	return v, nil
}

// HostMirror reads the Debian mirror from the host's apt configuration: the
// first URIs: of a deb822 source in /etc/apt/sources.list.d/*.sources that
// is not a security or updates archive, else the first such `deb` line of
// /etc/apt/sources.list (and sources.list.d/*.list).
func HostMirror() (string, error) {
	return hostMirror("/etc/apt")
}

func hostMirror(etcApt string) (string, error) {
	sources, _ := filepath.Glob(filepath.Join(etcApt, "sources.list.d", "*.sources"))
	sort.Strings(sources)
	for _, f := range sources {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if m := mirrorFromDeb822(string(data)); m != "" {
			return m, nil
		}
	}
	lists, _ := filepath.Glob(filepath.Join(etcApt, "sources.list.d", "*.list"))
	sort.Strings(lists)
	lists = append([]string{filepath.Join(etcApt, "sources.list")}, lists...)
	for _, f := range lists {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if m := mirrorFromList(string(data)); m != "" {
			return m, nil
		}
	}
	return "", fmt.Errorf("no Debian mirror found in %s/sources.list.d/*.sources or %s/sources.list; configure apt or pass a mirror", etcApt, etcApt)
}

func isMainArchive(uri string, suites []string) bool {
	if strings.Contains(uri, "security") {
		return false
	}
	for _, s := range suites {
		if !strings.Contains(s, "-") { // bookworm, trixie, stable: not -updates/-security/-backports
			return true
		}
	}
	return false
}

func mirrorFromDeb822(text string) string {
	for _, stanza := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n\n") {
		fields := map[string]string{}
		sc := bufio.NewScanner(strings.NewReader(stanza))
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "#") {
				continue
			}
			k, v, ok := strings.Cut(line, ":")
			if ok && !strings.HasPrefix(k, " ") {
				fields[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
			}
		}
		if !strings.Contains(" "+fields["types"]+" ", " deb ") || strings.EqualFold(fields["enabled"], "no") {
			continue
		}
		uris := strings.Fields(fields["uris"])
		if len(uris) > 0 && isMainArchive(uris[0], strings.Fields(fields["suites"])) {
			return strings.TrimRight(uris[0], "/")
		}
	}
	return ""
}

func mirrorFromList(text string) string {
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 3 || f[0] != "deb" {
			continue
		}
		f = f[1:]
		if strings.HasPrefix(f[0], "[") { // [ options ]
			for len(f) > 0 && !strings.HasSuffix(f[0], "]") {
				f = f[1:]
			}
			if len(f) > 0 {
				f = f[1:]
			}
		}
		if len(f) >= 2 && isMainArchive(f[0], []string{f[1]}) {
			return strings.TrimRight(f[0], "/")
		}
	}
	return ""
}

// trimRootfs removes what a container never needs: apt lists and caches,
// documentation, man pages and locales.
func trimRootfs(root string) error {
	globs := []string{
		"var/lib/apt/lists/*", "var/cache/apt/*.bin", "var/cache/apt/archives/*.deb",
		"usr/share/doc/*", "usr/share/man/*", "usr/share/info/*", "usr/share/locale/*",
		"var/log/*.log", "var/cache/debconf/*-old",
	}
	for _, g := range globs {
		matches, err := filepath.Glob(filepath.Join(root, g))
		if err != nil {
			return err
		}
		for _, m := range matches {
			if filepath.Base(m) == "lock" || filepath.Base(m) == "partial" {
				continue
			}
			if err := os.RemoveAll(m); err != nil {
				return err
			}
		}
	}
	return nil
}

// importRootfs streams `tar -C root -c .` into `docker import`.
func importRootfs(ctx context.Context, root, tag string) error {
	tarCmd := exec.CommandContext(ctx, "tar", "--numeric-owner", "-C", root, "-c", ".")
	imp := exec.CommandContext(ctx, "docker", "import",
		"--change", "LABEL "+Label+"=1",
		"--change", "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"--change", `CMD ["/bin/bash"]`,
		"-", tag)
	pipe, err := tarCmd.StdoutPipe()
	if err != nil {
		return err
	}
	var tarErr, impOut bytes.Buffer
	tarCmd.Stderr = &tarErr
	imp.Stdin = pipe
	imp.Stdout, imp.Stderr = &impOut, &impOut
	if err := tarCmd.Start(); err != nil {
		return fmt.Errorf("tar: %v", err)
	}
	ierr := imp.Run()
	terr := tarCmd.Wait()
	if terr != nil {
		return fmt.Errorf("tar of the rootfs failed: %v: %s", terr, lines.Last(strings.TrimSpace(tarErr.String()), 1))
	}
	if ierr != nil {
		return fmt.Errorf("docker import %s failed: %v: %s", tag, ierr, lines.Last(strings.TrimSpace(impOut.String()), 1))
	}
	return nil
}
