package nodebuild

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/lnbench/lnbench/internal/lines"
)

// AddVersion creates the release build module imagesDir/<impl>/<version>/
// the way that works for any release: a fresh go.mod (module line, the
// release's go directive, its replace lines, the tool block), then
// `go get IMPL@VERSION` and `go mod tidy`, so the module graph is the
// release's own. (Copying another version's folder keeps that version's
// dependency versions and does not compile.) On failure nothing is left.
func AddVersion(ctx context.Context, imagesDir, impl, version string, log io.Writer) (Spec, error) {
	if log == nil {
		log = io.Discard
	}
	mod, ok := modulePaths[impl]
	if !ok {
		return Spec{}, fmt.Errorf("add version: unknown implementation %q (known: lnd)", impl)
	}
	if !strings.HasPrefix(version, "v") {
		return Spec{}, fmt.Errorf("add version %q: a release version starts with v, e.g. v0.20.1-beta", version)
	}
	dir := filepath.Join(imagesDir, impl, version)
	if _, err := os.Stat(dir); err == nil {
		return Spec{}, fmt.Errorf("add version: %s already exists (remove it first to regenerate it)", dir)
	}
	goMod, err := releaseGoMod(ctx, mod, version, log)
	if err != nil {
		return Spec{}, err
	}
	release, err := readModFile(goMod)
	if err != nil {
		return Spec{}, fmt.Errorf("add version: %s@%s go.mod: %v", mod, version, err)
	}
	goVersion := toolDirectiveGo
	if release.Go != nil {
		goVersion = release.Go.Version
	}
	text, dropped := buildModule("lnbench.local/images/"+impl+"/"+version, goVersion, release, "", nil)
	header := fmt.Sprintf("// Build module for %s %s and the btcd its module graph selects.\n"+
		"// Made by `lnbench build --add-version %s`: the replace lines repeat the\n"+
		"// release's own (go install refuses modules with replaces); btcd is not\n"+
		"// required on its own, so it comes at the version the release selects.\n", impl, version, version)
	for _, d := range dropped {
		fmt.Fprintf(log, "note: the release's local replace %q cannot apply outside its repository; left out\n", d)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Spec{}, err
	}
	ok = false
	defer func() {
		if !ok {
			os.RemoveAll(dir)
		}
	}()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(header+text), 0o644); err != nil {
		return Spec{}, err
	}
	for _, args := range [][]string{{"get", mod + "@" + version}, {"mod", "tidy"}} {
		fmt.Fprintf(log, "go %s (in %s)\n", strings.Join(args, " "), dir)
		quiet := args[0] == "mod" // tidy's module lookups matter only when it fails
		if err := runCommand(ctx, command{Dir: dir, Env: []string{"GOFLAGS="}, Log: log, Name: "go", Args: args, Quiet: quiet}); err != nil {
			return Spec{}, fmt.Errorf("add version %s: %w", version, err)
		}
	}
	ok = true
	return Spec{Implementation: impl, Version: version, ModuleDir: dir}, nil
}

// releaseGoMod downloads mod@version's go.mod into the module cache and
// returns its path.
func releaseGoMod(ctx context.Context, mod, version string, log io.Writer) (string, error) {
	var out bytes.Buffer
	err := run(ctx, command{Dir: os.TempDir(), Env: []string{"GOFLAGS=", "GO111MODULE=on"}, Log: &out,
		Name: "go", Args: []string{"mod", "download", "-json", mod + "@" + version}})
	var info struct{ GoMod, Error string }
	json.Unmarshal(out.Bytes(), &info)
	if info.Error != "" {
		return "", fmt.Errorf("add version: %s (is %s a release of %s? versions are named in full, e.g. v0.20.1-beta)", info.Error, version, mod)
	}
	if err != nil {
		return "", fmt.Errorf("add version: %w: %s", err, strings.ReplaceAll(lines.Last(strings.TrimSpace(out.String()), 3), "\n", "; "))
	}
	if info.GoMod == "" {
		return "", fmt.Errorf("add version: go mod download %s@%s named no go.mod", mod, version)
	}
	return info.GoMod, nil
}
