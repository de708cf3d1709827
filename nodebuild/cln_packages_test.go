package nodebuild

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestMissingFromListing(t *testing.T) {
	listing := "jq ii \npython3 ii \nlowdown rc \nlibffi-dev:amd64 ii \nautoconf un \n"
	got := missingFromListing(listing, []string{"jq", "python3", "lowdown", "libffi-dev", "autoconf", "libtool"})
	if want := []string{"lowdown", "autoconf", "libtool"}; !reflect.DeepEqual(got, want) {
		t.Errorf("missing %v, want %v (removed, unknown or not listed)", got, want)
	}
}

// withPackageSeams swaps the dpkg, apt-get and root seams for one test.
func withPackageSeams(t *testing.T, missing []string, checkErr error, root bool, installErr error) *[][]string {
	t.Helper()
	var installs [][]string
	oldMissing, oldInstall, oldMay := missingPackages, installPackages, mayInstall
	missingPackages = func(context.Context, []string) ([]string, error) { return missing, checkErr }
	installPackages = func(_ context.Context, pkgs []string) error { installs = append(installs, pkgs); return installErr }
	mayInstall = func() bool { return root }
	t.Cleanup(func() { missingPackages, installPackages, mayInstall = oldMissing, oldInstall, oldMay })
	return &installs
}

func TestEnsureCLNPackages(t *testing.T) {
	ctx := context.Background()
	t.Run("all there: nothing installed", func(t *testing.T) {
		installs := withPackageSeams(t, nil, nil, true, nil)
		if err := ensureCLNPackages(ctx, &bytes.Buffer{}); err != nil || len(*installs) != 0 {
			t.Errorf("err %v, installs %v", err, *installs)
		}
	})
	t.Run("root installs exactly what is missing", func(t *testing.T) {
		installs := withPackageSeams(t, []string{"lowdown", "jq"}, nil, true, nil)
		var log bytes.Buffer
		if err := ensureCLNPackages(ctx, &log); err != nil {
			t.Fatal(err)
		}
		if want := [][]string{{"lowdown", "jq"}}; !reflect.DeepEqual(*installs, want) || !strings.Contains(log.String(), "lowdown jq") {
			t.Errorf("installs %v, log %q", *installs, log.String())
		}
	})
	t.Run("not root: refused in one line naming packages and command", func(t *testing.T) {
		installs := withPackageSeams(t, []string{"lowdown"}, nil, false, nil)
		err := ensureCLNPackages(ctx, &bytes.Buffer{})
		if err == nil || len(*installs) != 0 || strings.Contains(err.Error(), "\n") ||
			!strings.Contains(err.Error(), "missing: lowdown") || !strings.Contains(err.Error(), "apt-get install -y --no-install-recommends lowdown") {
			t.Errorf("err %v, installs %v", err, *installs)
		}
	})
	t.Run("apt-get fails: the error says how to install by hand", func(t *testing.T) {
		withPackageSeams(t, []string{"lowdown"}, nil, true, errors.New("apt-get install: exit status 100: E: Unable to locate package lowdown"))
		err := ensureCLNPackages(ctx, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), "Unable to locate package lowdown") || !strings.Contains(err.Error(), "install them by hand") {
			t.Errorf("err %v", err)
		}
	})
	t.Run("no dpkg: the build goes on", func(t *testing.T) {
		installs := withPackageSeams(t, nil, errors.New(`exec: "dpkg-query": executable file not found in $PATH`), true, nil)
		var log bytes.Buffer
		if err := ensureCLNPackages(ctx, &log); err != nil || len(*installs) != 0 || !strings.Contains(log.String(), "./configure will name") {
			t.Errorf("err %v, installs %v, log %q", err, *installs, log.String())
		}
	})
}

// TestDpkgMissingOnThisMachine asks the real dpkg about a package every
// Debian system has and one that cannot exist.
func TestDpkgMissingOnThisMachine(t *testing.T) {
	got, err := dpkgMissing(context.Background(), []string{"dpkg", "lnbench-no-such-package"})
	if err != nil {
		t.Skipf("no dpkg here: %v", err)
	}
	if want := []string{"lnbench-no-such-package"}; !reflect.DeepEqual(got, want) {
		t.Errorf("missing %v, want %v", got, want)
	}
}
