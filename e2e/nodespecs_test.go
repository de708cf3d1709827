package e2e

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lnbench/lnbench/internal/cli"
	"github.com/lnbench/lnbench/report"
	"github.com/lnbench/lnbench/result"
)

// runCLI runs lnbench from the repository root (where images/ is) with
// the local backend and returns the one run folder it made.
func runCLI(t *testing.T, args ...string) string {
	t.Helper()
	arts := t.TempDir()
	wd, _ := os.Getwd()
	os.Chdir(repoRoot(t))
	defer os.Chdir(wd)
	var out, errb bytes.Buffer
	args = append(args, "--backend", "local", "--artifacts", arts)
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
	dir := runCLI(t, "run", "--node", "lnd@v0.21.0-beta", "--node", "old=lnd@v0.20.2-beta", "--baseline", "old",
		"--param", "Concurrency=5", "--param", "TotalPayments=20", "--quick")
	rep := readSummary(t, dir)
	if len(rep.Nodes) != 2 || rep.Scenario.Baseline != "old" {
		t.Fatalf("nodes %+v baseline %q", rep.Nodes, rep.Scenario.Baseline)
	}
	for _, n := range rep.Nodes {
		if n.Key == "" || n.GoVersion == "" || n.Profile != "tuned+bbolt" || n.Build != "lnd@"+n.Version ||
			!slices.Contains(n.Flags, "--db.batch-commit-interval=10ms") || n.Baseline != (n.Label == "old") {
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
	versions := nodeVersions(t, dir)
	if !versions["0.21.0-beta"] || !versions["0.20.2-beta"] {
		t.Errorf("lnd versions in the node logs: %v", versions)
	}
	f, err := os.Open(filepath.Join(dir, "summary.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) != 3 || !slices.Contains(rows[0], "Node") {
		t.Fatalf("summary.csv %v %v", rows, err)
	}
	bench, _ := os.ReadFile(filepath.Join(dir, "results.bench"))
	if !strings.Contains(string(bench), "/Node=old/") && !strings.Contains(string(bench), "Node=old") {
		t.Errorf("results.bench does not name the spec:\n%s", bench)
	}
}

// nodeVersions reads the lnd version each node's log reports at start.
func nodeVersions(t *testing.T, dir string) map[string]bool {
	t.Helper()
	logs, _ := filepath.Glob(filepath.Join(dir, "nodes", "*", "*", "*.log"))
	out := map[string]bool{}
	for _, l := range logs {
		data, _ := os.ReadFile(l)
		for _, v := range []string{"0.21.0-beta", "0.20.2-beta"} {
			if strings.Contains(string(data), "Version: "+v) || strings.Contains(string(data), "version "+v) {
				out[v] = true
			}
		}
	}
	return out
}
