package nodebuild

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"
)

// toolDirectiveGo is the first go version whose go.mod knows `tool` lines.
const toolDirectiveGo = "1.24"

func readModFile(path string) (*modfile.File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return modfile.Parse(path, data, nil)
}

func treeModulePath(dir string) (string, error) {
	f, err := readModFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return "", err
	}
	if f.Module == nil {
		return "", fmt.Errorf("%s/go.mod has no module line", dir)
	}
	return f.Module.Mod.Path, nil
}

// buildModule is the text of a go.mod that builds Packages of module
// modPath. Replace lines are copied from the module's own go.mod because
// only the main module's replaces apply; local paths in them are made
// absolute against localBase (a source tree), or dropped with a note when
// localBase is empty (a release: its local paths point into LND's repo).
// Extra lines (e.g. the replace onto a source tree) come first.
func buildModule(self, goVersion string, src *modfile.File, localBase string, extra []string) (text string, dropped []string) {
	if semver.Compare("v"+goVersion, "v"+toolDirectiveGo) < 0 {
		goVersion = toolDirectiveGo
	}
	var b strings.Builder
	fmt.Fprintf(&b, "module %s\n\ngo %s\n", self, goVersion)
	for _, line := range extra {
		fmt.Fprintf(&b, "\n%s\n", line)
	}
	for _, r := range src.Replace {
		old := r.Old.Path
		if r.Old.Version != "" {
			old += " " + r.Old.Version
		}
		target := r.New.Path
		if r.New.Version != "" {
			target += " " + r.New.Version
		} else if localBase == "" {
			dropped = append(dropped, old+" => "+target)
			continue
		} else if !filepath.IsAbs(target) {
			target = filepath.Join(localBase, target)
		}
		fmt.Fprintf(&b, "\nreplace %s => %s\n", old, target)
	}
	pkgs := make([]string, 0, len(Packages))
	for _, p := range Packages {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	b.WriteString("\ntool (\n")
	for _, p := range pkgs {
		fmt.Fprintf(&b, "\t%s\n", p)
	}
	b.WriteString(")\n")
	return b.String(), dropped
}

// sourceModule is the go.mod of the generated build module of a source
// tree: it requires the tree's module through a replace onto the tree.
func sourceModule(spec Spec) (string, error) {
	tree, err := readModFile(filepath.Join(spec.SourceDir, "go.mod"))
	if err != nil {
		return "", fmt.Errorf("source tree %s: %v", spec.SourceDir, err)
	}
	if tree.Module == nil || tree.Go == nil {
		return "", fmt.Errorf("source tree %s: go.mod lacks a module or go line", spec.SourceDir)
	}
	mod := tree.Module.Mod.Path
	text, _ := buildModule("lnbench.local/src/"+spec.Implementation, tree.Go.Version, tree, spec.SourceDir, []string{
		"require " + mod + " v0.0.0-00010101000000-000000000000",
		"replace " + mod + " => " + spec.SourceDir,
	})
	return text, nil
}
