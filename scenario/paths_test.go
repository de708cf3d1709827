package scenario

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Every path in a scenario file resolves from the file's folder, whatever
// the current directory (issue 22: src: resolved from the current
// directory, topology files from the scenario's folder).
func TestScenarioFilePathsResolveBesideTheFile(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "bench", "scenarios")
	write(t, filepath.Join(root, "bench", "topo.yml"), "nodes: [{name: a}, {name: b, node: lnd@src:../lnd-b}]\nchannels: [{from: a, to: b}]\npayers: [a]\npayee: b\n")
	write(t, filepath.Join(dir, "s.yml"), `name: P
topology: ../topo.yml
nodes: ["lnd@src:../../lnd+pgo=prof/default.pgo"]
`)
	write(t, filepath.Join(dir, "g.yml"), "name: G\ntopology: random\nparams: {Graph: [graphs/x.json, ring]}\n")
	t.Chdir(t.TempDir()) // the current directory plays no part

	s, err := Load(filepath.Join(dir, "s.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, "bench", "topo.yml"); s.Topology != want {
		t.Errorf("topology %q, want %q", s.Topology, want)
	}
	sp := s.Specs()[0]
	if want := filepath.Join(root, "lnd"); sp.SourceDir() != want {
		t.Errorf("src: %q, want %q", sp.SourceDir(), want)
	}
	if want := filepath.Join(dir, "prof", "default.pgo"); sp.Flavour.PGO != want {
		t.Errorf("pgo= %q, want %q", sp.Flavour.PGO, want)
	}
	// A topology file's node specs are from the topology file's folder.
	all, err := s.AllSpecs()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 || all[1].SourceDir() != filepath.Join(root, "lnd-b") {
		t.Errorf("topology-pinned spec: %+v", all)
	}

	g, err := Load(filepath.Join(dir, "g.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if got := g.Params[0].Values; got[0] != filepath.Join(dir, "graphs", "x.json") || got[1] != "ring" {
		t.Errorf("Graph values %q", got)
	}
}

// A relative path that exists only from the current directory (where older
// versions looked) is refused with the path to write.
func TestScenarioFilePathFoundOnlyFromTheCurrentDirectory(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "topo.yml"), "x")
	write(t, filepath.Join(root, "lnd", "go.mod"), "module x\n")
	write(t, filepath.Join(root, "bench", "a.yml"), "name: A\ntopology: topo.yml\n")
	write(t, filepath.Join(root, "bench", "b.yml"), "name: B\ntopology: AlicePaysBob\nnodes: [lnd@src:lnd]\n")
	t.Chdir(root)
	_, err := Load("bench/a.yml")
	if err == nil || !strings.Contains(err.Error(), "relative to its folder (bench)") || !strings.HasSuffix(err.Error(), "write ../topo.yml") {
		t.Errorf("topology: err %v", err)
	}
	_, err = Load("bench/b.yml")
	if err == nil || !strings.Contains(err.Error(), "nodes[0]: spec lnd@src:lnd") || !strings.HasSuffix(err.Error(), "write ../lnd") {
		t.Errorf("src: err %v", err)
	}
}

// Command-line paths (--node, --param Graph=) stay relative to the current
// directory.
func TestCommandLinePathsAreFromTheCurrentDirectory(t *testing.T) {
	cwd := t.TempDir()
	t.Chdir(cwd)
	specs, err := ParseNodeFlags([]string{"lnd@src:lnd+pgo=p.pgo"})
	if err != nil {
		t.Fatal(err)
	}
	if specs[0].SourceDir() != filepath.Join(cwd, "lnd") || specs[0].Flavour.PGO != filepath.Join(cwd, "p.pgo") {
		t.Errorf("--node paths: %q %q", specs[0].SourceDir(), specs[0].Flavour.PGO)
	}
	s, err := Parse([]byte("name: C\ntopology: graphs/x.json\n"))
	if err != nil || s.Topology != "graphs/x.json" {
		t.Errorf("Parse (no file) keeps the path as given: %q %v", s.Topology, err)
	}
}
