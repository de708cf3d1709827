//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lnbench/lnbench/cli"
	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/report"
)

// runCLI runs lnbench in process with the repository's images/ and
// the local backend and returns the one run folder it made.
func runCLI(t *testing.T, args ...string) string {
	t.Helper()
	arts := artifactsDir(t)
	var out, errb bytes.Buffer
	// --images instead of a chdir: the working directory is the whole
	// process's, and parallel tests share it.
	args = append(args, "--backend", "local", "--artifacts", arts, "--images", filepath.Join(repoRoot(t), "images"))
	if err := cli.Run(context.Background(), &out, &errb, args); err != nil {
		t.Fatalf("lnbench %v: %v\n%s", args, err, errb.String())
	}
	dirs, _ := filepath.Glob(filepath.Join(arts, "*", "summary.json"))
	if len(dirs) != 1 {
		t.Fatalf("run folders: %v", dirs)
	}
	return filepath.Dir(dirs[0])
}

func readSummary(t *testing.T, dir string) report.Report {
	t.Helper()
	var rep report.Report
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err == nil {
		err = json.Unmarshal(data, &rep)
	}
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestTwoSpecsOneRun compares v0.21 with v0.20 on AlicePaysBob in one run:
// each case exists once per spec, named by its Node label in summary.json,
// summary.csv and results.bench, and the report describes both builds.
func TestTwoSpecsOneRun(t *testing.T) {
	t.Parallel() // local processes on free ports, own work and artifacts folders
	dir := runCLI(t, "run", "--node", "lnd@v0.21.0-beta", "--node", "old=lnd@v0.20.2-beta", "--baseline", "old",
		"--param", "Concurrency=5", "--param", "TotalPayments=20", "--quick", "--order", "shuffled", "--seed", "11")
	rep := readSummary(t, dir)
	if len(rep.Nodes) != 2 || rep.Scenario.Baseline != "old" {
		t.Fatalf("nodes %+v baseline %q", rep.Nodes, rep.Scenario.Baseline)
	}
	for _, n := range rep.Nodes {
		if n.Key == "" || n.GoVersion == "" || n.Profile != "default+bbolt" || n.Build != "lnd@"+n.Version ||
			!slices.Contains(n.Flags, "--trickledelay=50") || n.Baseline != (n.Label == "old") {
			t.Errorf("node info %+v", n)
		}
	}
	if rep.Nodes[0].Key == rep.Nodes[1].Key {
		t.Errorf("two releases share build key %s", rep.Nodes[0].Key)
	}
	labels := map[string]bool{}
	for _, c := range rep.Cases {
		if len(c.Params) == 0 || c.Params[0].Name != "Node" {
			t.Fatalf("case params %+v do not lead with Node", c.Params)
		}
		labels[c.Params[0].Value] = true
		if c.Succeeded != 60 {
			t.Errorf("case %+v: %d payments succeeded, want 60 (3 iterations × 20)", c.Params, c.Succeeded)
		}
	}
	if len(rep.Cases) != 2 || !labels["v0.21.0-beta"] || !labels["old"] {
		t.Fatalf("cases %+v", rep.Cases)
	}
	// Against the baseline spec: Ratio 1 and "baseline" on its own row, a
	// measured ratio and a three-way verdict with its evidence on the
	// other. --quick runs one launch a side: the iterations give a ratio,
	// never more than not yet known, and the note says why.
	verdicts := []string{report.VerdictFaster, report.VerdictSlower, report.VerdictSame, report.VerdictUnknown}
	for _, c := range rep.Cases {
		switch {
		case c.Ratio == nil:
			t.Errorf("case %+v has no ratio against the baseline", c.Params)
		case c.Params[0].Value == "old" && (c.Ratio.Of != 1 || c.Ratio.Verdict != report.VerdictBaseline):
			t.Errorf("baseline row: %+v", *c.Ratio)
		case c.Params[0].Value != "old" && (c.Ratio.Of <= 0 || !slices.Contains(verdicts, c.Ratio.Verdict) || c.Ratio.MDE <= 0 ||
			c.Ratio.Low <= 0 || c.Ratio.High < c.Ratio.Low || c.Ratio.NBase != 3 || c.Ratio.NNew != 3 || c.Ratio.Level != report.LevelIterations || c.Ratio.Verdict != report.VerdictUnknown ||
			!slices.ContainsFunc(c.Ratio.Notes, func(n string) bool { return strings.Contains(n, "ignore launch-to-launch variance") })):
			t.Errorf("compared row: %+v", *c.Ratio)
		}
	}
	// The design, its launch order and seed are recorded and shown.
	if d := rep.Design; d == nil || d.Name != report.DesignInterleaved || !d.Frozen || d.Order != "shuffled" || d.Seed != 11 || len(d.Rounds) != 1 || len(d.Rounds[0]) != 2 {
		t.Errorf("design %+v", rep.Design)
	}
	if yml, _ := os.ReadFile(filepath.Join(dir, "scenario.yml")); !strings.Contains(string(yml), "compare:\n  order: shuffled\n  seed: 11\n") {
		t.Errorf("scenario.yml does not record the order and seed:\n%s", yml)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	for _, want := range []string{"| Ratio | RatioSD | 95% CI | p | n | MDE | Verdict |", "| 3+3 it |", "| - | - | 1 | - | baseline |", "Design: interleaved (each launch round's networks up together, measured iterations alternating", "the waiting networks frozen", "1 launch round(s) in shuffled order (seed 11): ",
		"## Verdicts against the baseline"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("summary.md lacks %q:\n%s", want, md)
		}
	}
	if html, _ := os.ReadFile(filepath.Join(dir, "report.html")); !strings.Contains(string(html), "<th>MDE</th>") || !strings.Contains(string(html), "Design: interleaved") {
		t.Error("report.html lacks the MDE column or the design")
	}
	// Each spec's payments ran on a network of its own version.
	recs, err := result.ReadFile(filepath.Join(dir, "payments.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.Status != result.Succeeded || !strings.HasPrefix(r.Case, "Node=") {
			t.Errorf("record %+v", r)
		}
	}
	want := map[string]string{"launch1_Node-v0.21.0-beta/alice": "0.21.0-beta", "launch1_Node-v0.21.0-beta/bob": "0.21.0-beta",
		"launch1_Node-old/alice": "0.20.2-beta", "launch1_Node-old/bob": "0.20.2-beta"}
	if got := nodeVersions(t, dir); !maps.Equal(got, want) {
		t.Errorf("lnd versions in the node logs: %v, want %v", got, want)
	}
	f, err := os.Open(filepath.Join(dir, "summary.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) != 3 || !slices.Contains(rows[0], "Node") || !slices.Contains(rows[0], "MDE") || !slices.Contains(rows[0], "RatioLow") || !slices.Contains(rows[0], "Verdict") {
		t.Fatalf("summary.csv %v %v", rows, err)
	}
	bench, _ := os.ReadFile(filepath.Join(dir, "results.bench"))
	if !strings.Contains(string(bench), "/Node=old/") && !strings.Contains(string(bench), "Node=old") {
		t.Errorf("results.bench does not name the spec:\n%s", bench)
	}
}

// nodeVersions maps each node's log, as network/node, to the lnd version
// it reports at start ("Version Info … version=0.21.0-beta").
func nodeVersions(t *testing.T, dir string) map[string]string {
	t.Helper()
	logs, _ := filepath.Glob(filepath.Join(dir, "nodes", "*", "*", "lnd.log"))
	out := map[string]string{}
	for _, l := range logs {
		data, _ := os.ReadFile(l)
		_, rest, ok := strings.Cut(string(data), "Version Info")
		if !ok {
			continue
		}
		_, v, _ := strings.Cut(rest, " version=")
		v, _, _ = strings.Cut(v, " ")
		out[filepath.Base(filepath.Dir(filepath.Dir(l)))+"/"+filepath.Base(filepath.Dir(l))] = v
	}
	return out
}

// TestMixedChain runs alice→carol1→carol2→bob with carol2 on v0.20.2 and
// everyone else on the scenario's v0.21: payments cross both Carols, each
// node's log shows the version its spec names, and the report names every
// node's spec.
func TestMixedChain(t *testing.T) {
	t.Parallel() // local processes on free ports, own work and artifacts folders
	tmp := t.TempDir()
	topo := filepath.Join(tmp, "mixed-chain.yml")
	scen := filepath.Join(tmp, "mixed.yml")
	os.WriteFile(topo, []byte(`nodes:
  - {name: alice}
  - {name: carol1}
  - {name: carol2, node: lnd@v0.20.2-beta}
  - {name: bob}
channels:
  - {from: alice, to: carol1}
  - {from: carol1, to: carol2}
  - {from: carol2, to: bob}
payers: [alice]
payee: bob
`), 0o644)
	os.WriteFile(scen, []byte("name: MixedChain\ntopology: mixed-chain.yml\nparams:\n  Concurrency: [5]\n  TotalPayments: [20]\n"), 0o644)
	dir := runCLI(t, "run", scen, "--quick")
	rep := readSummary(t, dir)
	ran := map[string]string{}
	for _, n := range rep.Nodes {
		for _, name := range n.Nodes {
			ran[name] = n.Build
		}
	}
	want := map[string]string{"alice": "lnd@v0.21.0-beta", "carol1": "lnd@v0.21.0-beta", "carol2": "lnd@v0.20.2-beta", "bob": "lnd@v0.21.0-beta"}
	if !maps.Equal(ran, want) || len(rep.Nodes) != 2 {
		t.Fatalf("report names node specs %v (nodes %+v), want %v", ran, rep.Nodes, want)
	}
	if got := nodeVersions(t, dir); got["launch1/carol2"] != "0.20.2-beta" || got["launch1/carol1"] != "0.21.0-beta" || got["launch1/bob"] != "0.21.0-beta" {
		t.Errorf("lnd versions in the node logs: %v", got)
	}
	forwarded := map[string]int{}
	for _, f := range rep.Forwards {
		forwarded[f.Node] += f.Count
	}
	// 1 warm-up + 3 measured iterations × 20 payments crossed each Carol.
	if forwarded["carol1"] < 80 || forwarded["carol2"] < 80 {
		t.Errorf("forwards %v, want at least 80 through each Carol", forwarded)
	}
	if len(rep.Cases) != 1 || rep.Cases[0].Succeeded != 60 || len(rep.Cases[0].Params) == 0 || rep.Cases[0].Params[0].Name == "Node" {
		t.Errorf("cases %+v: one spec compared, so no Node value", rep.Cases)
	}
}
