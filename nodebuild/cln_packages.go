package nodebuild

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/lnbench/lnbench/internal/lines"
)

// CLNBuildPackages are the Debian packages a Core Lightning build needs
// (./configure --disable-rust, make all-programs, make install): the
// compilers and autotools, the libraries with their headers, and the
// tools its Makefile runs (lowdown for the man pages, mako for generated
// code, jq, gettext). libpq-dev gives lightningd its PostgreSQL wallet
// (./configure finds pg_config; db=postgres).
var CLNBuildPackages = []string{
	"build-essential", "autoconf", "automake", "libtool", "pkg-config", "gettext",
	"libsqlite3-dev", "libpq-dev", "libsodium-dev", "zlib1g-dev", "libffi-dev",
	"python3", "python3-mako", "jq", "lowdown",
}

// Seams for tests: what dpkg says is missing, apt-get, and whether
// lnbench may install (root).
var (
	missingPackages = dpkgMissing
	installPackages = aptInstall
	mayInstall      = func() bool { return os.Geteuid() == 0 }
)

// ensureCLNPackages makes sure CLNBuildPackages are installed before a CLN
// build starts (see EnsurePackages); where dpkg cannot say (not Debian),
// the build goes on and ./configure names what it lacks.
func ensureCLNPackages(ctx context.Context, log io.Writer) error {
	return EnsurePackages(ctx, log, DebianPackages{For: "building Core Lightning", Name: "Core Lightning's build packages",
		List: CLNBuildPackages, Unchecked: "./configure will name what is missing"})
}

// DebianPackages are Debian packages something needs.
type DebianPackages struct {
	// For is what needs them ("building Core Lightning"), Name what they
	// are called in messages.
	For, Name string
	List      []string
	// Unchecked is what happens instead when dpkg cannot say.
	Unchecked string
}

// EnsurePackages installs the missing ones of p with apt-get when lnbench
// runs as root; otherwise it refuses in one line naming them and the
// command that installs them. Where dpkg cannot say (not Debian), it logs
// p.Unchecked and returns nil.
func EnsurePackages(ctx context.Context, log io.Writer, p DebianPackages) error {
	missing, err := missingPackages(ctx, p.List)
	if err != nil {
		fmt.Fprintf(log, "cannot check %s (%v); %s\n", p.Name, err, p.Unchecked)
		return nil
	}
	if len(missing) == 0 {
		return nil
	}
	install := "apt-get update && apt-get install -y --no-install-recommends " + strings.Join(missing, " ")
	if !mayInstall() {
		return fmt.Errorf("%s needs Debian packages that are missing: %s; install them as root: sudo sh -c '%s'", p.For, strings.Join(missing, " "), install)
	}
	fmt.Fprintf(log, "installing %s with apt-get: %s\n", p.Name, strings.Join(missing, " "))
	if err := installPackages(ctx, missing); err != nil {
		return fmt.Errorf("installing %s: %v; install them by hand: %s", p.Name, err, install)
	}
	return nil
}

// dpkgMissing returns the packages dpkg does not have installed; an error
// when dpkg-query cannot run (not a Debian machine).
func dpkgMissing(ctx context.Context, pkgs []string) ([]string, error) {
	path, err := exec.LookPath("dpkg-query")
	if err != nil {
		return nil, err
	}
	// Unknown packages make dpkg-query exit 1 and print nothing for them on
	// stdout: the exit status is not the answer, the listing is.
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, path, append([]string{"-W", "-f=${Package} ${db:Status-Abbrev}\n"}, pkgs...)...)
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			return nil, err
		}
	}
	return missingFromListing(out.String(), pkgs), nil
}

// missingFromListing reads dpkg-query's "name status" lines: a package is
// installed when its status abbreviation is "ii".
func missingFromListing(listing string, pkgs []string) []string {
	installed := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(listing))
	for sc.Scan() {
		name, status, _ := strings.Cut(sc.Text(), " ")
		name, _, _ = strings.Cut(name, ":") // an architecture qualifier
		if strings.HasPrefix(status, "ii") {
			installed[name] = true
		}
	}
	var missing []string
	for _, p := range pkgs {
		if !installed[p] {
			missing = append(missing, p)
		}
	}
	return missing
}

// aptInstall runs apt-get update, then apt-get install of pkgs.
func aptInstall(ctx context.Context, pkgs []string) error {
	for _, args := range [][]string{
		{"update", "-qq"},
		append([]string{"install", "-y", "-qq", "--no-install-recommends"}, pkgs...),
	} {
		cmd := exec.CommandContext(ctx, "apt-get", args...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("apt-get %s: %v: %s", args[0], err, lines.Last(strings.TrimSpace(string(out)), 2))
		}
	}
	return nil
}
