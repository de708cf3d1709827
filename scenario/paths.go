package scenario

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/lnbench/lnbench/nodespec"
	"github.com/lnbench/lnbench/topology"
)

// Paths written in a scenario file (its topology or graph file, a Graph
// param's graph files, node specs' src: and pgo=, and node specs a topology
// file pins) are relative to that file's folder, whatever the current
// directory; paths given on the command line are relative to the current
// directory. Resolved paths are absolute, so a recorded scenario.yml
// names the same files from anywhere.

// inDir makes a path written in a file in dir absolute. A relative path
// that is missing there but present from the current directory (where
// older versions looked) is refused with the path to write instead.
func inDir(field, p, dir string) (string, error) {
	if p == "" || filepath.IsAbs(p) || dir == "" {
		return p, nil
	}
	beside, err := filepath.Abs(filepath.Join(dir, p))
	if err != nil {
		return p, err
	}
	if !pathExists(beside) && pathExists(p) {
		fix, err := filepath.Rel(mustAbs(dir), mustAbs(p))
		if err != nil {
			fix = mustAbs(p)
		}
		return p, fmt.Errorf("%s %s: paths in a scenario file are relative to its folder (%s), where %s does not exist; write %s", field, p, dir, p, fix)
	}
	return beside, nil
}

func pathExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// resolvePaths makes the file paths of a scenario read from a file in dir
// absolute from dir (node specs are resolved as they are parsed: specIn).
func (s *Scenario) resolvePaths(dir string) error {
	if topology.IsFile(s.Topology) || topology.IsGraphFile(s.Topology) {
		p, err := inDir("topology", s.Topology, dir)
		if err != nil {
			return err
		}
		s.Topology = p
	}
	for i, p := range s.Params {
		if p.Name != "Graph" {
			continue
		}
		values := append([]string(nil), p.Values...)
		for j, v := range values {
			if !topology.IsGraphFile(v) {
				continue
			}
			r, err := inDir("params.Graph", v, dir)
			if err != nil {
				return err
			}
			values[j] = r
		}
		s.Params[i].Values = values
	}
	return nil
}

// specIn parses a node spec written in a file in dir ("" = the command
// line): its src: and pgo= paths are from dir, and one that exists only
// from the current directory is refused with the path to write.
func specIn(field, text, dir string) (nodespec.Spec, error) {
	sp, err := nodespec.ParseIn(text, dir)
	if err != nil || dir == "" {
		return sp, err
	}
	cwd, err := nodespec.Parse(text)
	if err != nil {
		return sp, nil // only the file's reading counts
	}
	for _, p := range [][2]string{{sp.SourceDir(), cwd.SourceDir()}, {sp.Flavour.PGO, cwd.Flavour.PGO}} {
		if p[0] == p[1] || pathExists(p[0]) || !pathExists(p[1]) {
			continue
		}
		rel, err := filepath.Rel(mustAbs(dir), p[1])
		if err != nil {
			rel = p[1]
		}
		return sp, fmt.Errorf("%s %s: paths in a scenario file are relative to its folder (%s), where %s does not exist; write %s", field, text, dir, p[0], rel)
	}
	return sp, nil
}

func mustAbs(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}
