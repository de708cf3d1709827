package nodebuild

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/mod/module"
)

// A source tree that is a release with some files changed (a tweak, a
// planted cost, a bisect step after a tag) builds as that release with the
// changed files overlaid: the build module requires the release, vendors
// it (go refuses overlays beneath GOMODCACHE) and passes go build the
// changed files with -overlay. The release's packages keep their module
// version that way, so Go's build cache serves every package the change
// does not reach (a one-line edit of rpcserver.go after a release build:
// 39 s against 196 s through a replace onto the tree, whose packages are
// another module version and all compile again). The compiled code is the
// tree's; only the trimmed file names in the binary read module@version/…
// as the release's do.

// overlayBase is a release to build a tree as: its version, its module
// source in the module cache, and the overlay (a slash path in that source
// → the tree's file, or "" where the tree has deleted it).
type overlayBase struct {
	Version string
	Dir     string
	Replace map[string]string
	Tree    map[string]bool // the tree's files (moduleFiles), by slash path
}

// Files is the number of files the overlay changes, adds or deletes.
func (b overlayBase) Files() int { return len(b.Replace) }

// findOverlayBase looks in the module cache (modCache, GOMODCACHE) for a
// release of modPath whose go.mod is byte for byte the tree's, so the
// module graph is the same, and whose source is extracted there; of
// those, the one the tree differs from in the fewest files. ok is false
// when none qualifies, or when the tree cannot be built so: a local
// replace in its go.mod (a release build leaves those out), or a symlink.
func findOverlayBase(tree, modCache, modPath string) (base overlayBase, ok bool, err error) {
	goMod, err := os.ReadFile(filepath.Join(tree, "go.mod"))
	if err != nil {
		return base, false, err
	}
	mf, err := readModFile(filepath.Join(tree, "go.mod"))
	if err != nil {
		return base, false, err
	}
	for _, r := range mf.Replace {
		if r.New.Version == "" {
			return base, false, nil
		}
	}
	escaped, err := module.EscapePath(modPath)
	if err != nil {
		return base, false, err
	}
	mods, _ := filepath.Glob(filepath.Join(modCache, "cache", "download", escaped, "@v", "*.mod"))
	sort.Strings(mods)
	var treeFiles map[string]bool
	for _, m := range mods {
		version, err := module.UnescapeVersion(strings.TrimSuffix(filepath.Base(m), ".mod"))
		if err != nil {
			continue
		}
		if data, err := os.ReadFile(m); err != nil || !bytes.Equal(data, goMod) {
			continue
		}
		ev, _ := module.EscapeVersion(version)
		dir := filepath.Join(modCache, escaped+"@"+ev)
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			continue
		}
		if treeFiles == nil {
			if treeFiles, err = moduleFiles(tree); err != nil {
				if errors.Is(err, errSymlink) {
					return base, false, nil
				}
				return base, false, err
			}
		}
		replace, err := overlayOf(tree, treeFiles, dir)
		if err != nil {
			return base, false, err
		}
		if !ok || len(replace) < len(base.Replace) {
			base, ok = overlayBase{Version: version, Dir: dir, Replace: replace, Tree: treeFiles}, true
		}
	}
	return base, ok, nil
}

var errSymlink = errors.New("the tree holds a symlink")

// moduleFiles lists the files of the module rooted at root that can reach
// a binary, by slash path: not .git, not nested modules (a folder with its
// own go.mod is another module, left out of a module's zip too), not
// _test.go files.
func moduleFiles(root string) (map[string]bool, error) {
	files := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		switch {
		case d.IsDir() && d.Name() == ".git":
			return filepath.SkipDir
		case d.IsDir():
			if rel != "." {
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir
				}
			}
			return nil
		case d.Type()&fs.ModeSymlink != 0:
			return errSymlink
		case !d.Type().IsRegular() || d.Name() == ".git" || strings.HasSuffix(d.Name(), "_test.go"):
			return nil
		}
		files[filepath.ToSlash(rel)] = true
		return nil
	})
	return files, err
}

// overlayOf is the overlay that makes the module source in dir read as the
// tree: each tree file that dir lacks or holds with other content, and ""
// for each file of dir that the tree lacks.
func overlayOf(tree string, treeFiles map[string]bool, dir string) (map[string]string, error) {
	baseFiles, err := moduleFiles(dir)
	if err != nil {
		return nil, err
	}
	replace := map[string]string{}
	for rel := range treeFiles {
		t := filepath.Join(tree, filepath.FromSlash(rel))
		if baseFiles[rel] {
			same, err := sameContent(t, filepath.Join(dir, filepath.FromSlash(rel)))
			if err != nil {
				return nil, err
			}
			if same {
				continue
			}
		}
		replace[rel] = t
	}
	for rel := range baseFiles {
		if !treeFiles[rel] {
			replace[rel] = ""
		}
	}
	return replace, nil
}

func sameContent(a, b string) (bool, error) {
	x, err := os.ReadFile(a)
	if err != nil {
		return false, err
	}
	y, err := os.ReadFile(b)
	if err != nil {
		return false, err
	}
	return bytes.Equal(x, y), nil
}

// prepareOverlayBuild writes, in dir, the build module of a tree built as
// base (it requires the release, as a release's build module does), vendors
// it and writes the overlay onto the vendored release; it returns the go
// build flags that read them.
func prepareOverlayBuild(ctx context.Context, spec Spec, base overlayBase, dir string, env []string, log io.Writer) ([]string, error) {
	tree, err := readModFile(filepath.Join(spec.SourceDir, "go.mod"))
	if err != nil {
		return nil, err
	}
	if tree.Go == nil {
		return nil, fmt.Errorf("source tree %s: go.mod lacks a go line", spec.SourceDir)
	}
	mod := tree.Module.Mod.Path
	text, _ := buildModule("lnbench.local/src/"+spec.Implementation, tree.Go.Version, tree, "", []string{"require " + mod + " " + base.Version})
	if err := writeBuildModule(spec, dir, text); err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "building %s as %s@%s with %d files overlaid (the release's compiled packages are reused)\n", spec.SourceDir, spec.Implementation, base.Version, base.Files())
	for _, args := range [][]string{{"mod", "tidy"}, {"mod", "vendor"}} {
		if err := runCommand(ctx, command{Dir: dir, Env: env, Log: log, Name: "go", Args: args, Quiet: true}); err != nil {
			return nil, err
		}
	}
	replace := make(map[string]string, len(base.Replace))
	vendored := filepath.Join(dir, "vendor", filepath.FromSlash(mod))
	for rel, file := range base.Replace {
		replace[filepath.Join(vendored, filepath.FromSlash(rel))] = file
	}
	// Vendoring copies only the packages the release's binaries import;
	// an edit may import another of the module's packages, so the tree's
	// files that vendor/ lacks are overlaid too.
	for rel := range base.Tree {
		if _, changed := base.Replace[rel]; changed {
			continue
		}
		v := filepath.Join(vendored, filepath.FromSlash(rel))
		if _, err := os.Stat(v); errors.Is(err, fs.ErrNotExist) {
			replace[v] = filepath.Join(spec.SourceDir, filepath.FromSlash(rel))
		}
	}
	if err := listPackages(filepath.Join(dir, "vendor", "modules.txt"), mod, base.Version, base.Tree); err != nil {
		return nil, err
	}
	data, err := json.Marshal(struct{ Replace map[string]string }{replace})
	if err != nil {
		return nil, err
	}
	overlay := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(overlay, data, 0o644); err != nil {
		return nil, err
	}
	return []string{"-mod=vendor", "-overlay=" + overlay}, nil
}

// listPackages adds to vendor/modules.txt, under module mod, every package
// of the tree that vendoring left out: -mod=vendor ignores a package that
// the file does not list, even when the overlay supplies its files.
func listPackages(modulesTxt, mod, version string, tree map[string]bool) error {
	data, err := os.ReadFile(modulesTxt)
	if err != nil {
		return err
	}
	lines := strings.Split(string(data), "\n")
	listed := map[string]bool{}
	for _, l := range lines {
		listed[l] = true
	}
	var add []string
	seen := map[string]bool{}
	for rel := range tree {
		if !strings.HasSuffix(rel, ".go") {
			continue
		}
		pkg := mod
		if d := filepath.ToSlash(filepath.Dir(filepath.FromSlash(rel))); d != "." {
			pkg += "/" + d
		}
		if !listed[pkg] && !seen[pkg] {
			seen[pkg] = true
			add = append(add, pkg)
		}
	}
	if len(add) == 0 {
		return nil
	}
	sort.Strings(add)
	header := "# " + mod + " " + version
	for i, l := range lines {
		if l != header {
			continue
		}
		at := i + 1
		for at < len(lines) && strings.HasPrefix(lines[at], "## ") {
			at++
		}
		lines = append(lines[:at], append(add, lines[at:]...)...)
		return os.WriteFile(modulesTxt, []byte(strings.Join(lines, "\n")), 0o644)
	}
	return fmt.Errorf("%s: no %q section", modulesTxt, header)
}

// goModCache is `go env GOMODCACHE`.
func goModCache(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMODCACHE").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMODCACHE: %v", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// overlayBaseFor is findOverlayBase for a source spec, in the module cache
// `go` uses.
func overlayBaseFor(ctx context.Context, spec Spec) (overlayBase, bool, error) {
	mod, known := modulePaths[spec.Implementation]
	if !known {
		return overlayBase{}, false, nil
	}
	cache, err := goModCache(ctx)
	if err != nil {
		return overlayBase{}, false, err
	}
	return findOverlayBase(spec.SourceDir, cache, mod)
}
