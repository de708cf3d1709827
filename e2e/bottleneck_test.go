//go:build e2e

package e2e

// End-to-end tests of the resource analysis on real containers: the
// summary's per-actor cost and, with only bob held to half a CPU, the
// bottleneck verdict naming bob's CPU.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// summaryResources is the part of summary.json's "resources" the tests read.
type summaryResources struct {
	ID     string `json:"id"`
	Actors []struct {
		Name            string  `json:"name"`
		Role            string  `json:"role"`
		CPUMsPerPayment float64 `json:"cpu_ms_per_payment"`
		SyncsCounted    bool    `json:"syncs_counted"`
		SyncsPerPayment float64 `json:"syncs_per_payment"`
		Utilisation     float64 `json:"cpu_utilisation"`
		Limit           float64 `json:"cpu_limit"`
	} `json:"actors"`
	HasHarnessShare bool    `json:"has_harness_share"`
	HarnessShare    float64 `json:"harness_share"`
	Verdict         struct {
		Bound, Actor, Text string
	} `json:"verdict"`
}

func readSummaryResources(t *testing.T, dir string) []summaryResources {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Resources []summaryResources `json:"resources"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	return s.Resources
}

// TestComposeBottleneckBobLimited limits only bob's CPU in a topology file
// and expects the verdict to name bob's CPU; the summary also carries each
// LND actor's CPU ms and syncs per payment above zero and the harness's
// share of the nodes' CPU. The limit is 0.2 CPU, not the half CPU the issue
// names: at 0.5 CPU bob used 55–76% of it and was throttled in 5–22% of its
// periods here (c=8…100): one channel's commitment updates, not bob's CPU,
// bounded the rate, and the verdict rightly said nothing saturated.
func TestComposeBottleneckBobLimited(t *testing.T) {
	bin := composeSetup(t)
	topo := filepath.Join(t.TempDir(), "bob-half-cpu.yml")
	if err := os.WriteFile(topo, []byte(`name: BobHalfCPU
nodes: [{name: alice}, {name: bob, cpus: 0.2}]
channels: [{from: alice, to: bob}]
payers: [alice]
payee: bob
`), 0o644); err != nil {
		t.Fatal(err)
	}
	r := startCompose(t, bin, composeScenarioFile(t, fmt.Sprintf(`name: %s
topology: %s
params: {Concurrency: [40], TotalPayments: [200]}
job: {WarmupCount: 1, IterationCount: 2}
`, composeUniqueName("CmpBobHalf"), topo)))
	r.finish(6 * time.Minute)
	res := readSummaryResources(t, r.dir())
	if len(res) != 1 {
		t.Fatalf("summary resources: %+v", res)
	}
	c := res[0]
	for _, a := range c.Actors {
		t.Logf("%s (%s): %.2f CPU ms/payment, %.2f syncs/payment, CPU %.0f%% of %.2g", a.Name, a.Role, a.CPUMsPerPayment, a.SyncsPerPayment, 100*a.Utilisation, a.Limit)
		if a.Role == "node" && (a.CPUMsPerPayment <= 0 || !a.SyncsCounted || a.SyncsPerPayment <= 0) {
			t.Errorf("%s: CPU ms/payment %.2f, syncs/payment %.2f (counted %v); want both above zero", a.Name, a.CPUMsPerPayment, a.SyncsPerPayment, a.SyncsCounted)
		}
		if a.Name == "bob" && a.Limit != 0.2 {
			t.Errorf("bob's CPU limit %g, want 0.2 from the topology file", a.Limit)
		}
	}
	if !c.HasHarnessShare || c.HarnessShare <= 0 {
		t.Errorf("no harness/node CPU share: %+v", c)
	}
	t.Logf("harness/nodes CPU %.2f%%; verdict: %s", 100*c.HarnessShare, c.Verdict.Text)
	if c.Verdict.Bound != "cpu" || c.Verdict.Actor != "bob" || !strings.HasPrefix(c.Verdict.Text, "bob CPU ") || !strings.Contains(c.Verdict.Text, "CPU-bound at bob") {
		t.Errorf("verdict %+v; want CPU-bound at bob", c.Verdict)
	}
	r.checkNothingLeft()
}
