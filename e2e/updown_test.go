//go:build e2e

package e2e

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lnbench/lnbench/internal/testsupport"
)

// TestUpDown: `lnbench up` leaves a funded, connected network in containers
// that answers lncli through docker exec; `lnbench down <id>` removes
// exactly what carries the run's label.
func TestUpDown(t *testing.T) {
	testsupport.RequireDocker(t)
	binaries(t)
	bin := buildCLI(t)
	cmd := exec.Command(bin, "up", "AlicesPayBob", "--param", "AliceCount=2", "--artifacts", artifactsDir(t))
	cmd.Dir = repoRoot(t)
	out, err := cmd.CombinedOutput()
	id := regexp.MustCompile(`lnbench down (\S+)`).FindStringSubmatch(string(out))
	if id != nil {
		defer exec.Command(bin, "down", id[1]).Run()
	}
	if err != nil || id == nil {
		t.Fatalf("up: %v\n%s", err, out)
	}
	lncli := regexp.MustCompile(`alice2\s+(docker exec \S+ lncli .* getinfo)`).FindStringSubmatch(string(out))
	if lncli == nil {
		t.Fatalf("no lncli line for alice2:\n%s", out)
	}
	info, err := exec.Command("sh", "-c", lncli[1]).Output()
	if err != nil {
		t.Fatalf("%s: %v", lncli[1], err)
	}
	var gi struct {
		Alias  string `json:"alias"`
		Active int    `json:"num_active_channels"`
	}
	if err := json.Unmarshal(info, &gi); err != nil || gi.Alias != "alice2" || gi.Active != 1 {
		t.Fatalf("getinfo: %v %+v\n%s", err, gi, info)
	}
	down, err := exec.Command(bin, "down", id[1]).CombinedOutput()
	if err != nil || !strings.Contains(string(down), "removed 4 container(s), 1 network(s)") {
		t.Fatalf("down: %v\n%s", err, down)
	}
	left, _ := exec.Command("docker", "ps", "-aq", "--filter", "label=lnbench.run="+id[1]).Output()
	nets, _ := exec.Command("docker", "network", "ls", "-q", "--filter", "label=lnbench.run="+id[1]).Output()
	if len(strings.TrimSpace(string(left)+string(nets))) > 0 {
		t.Fatalf("left after down: %s %s", left, nets)
	}
	if matches, _ := filepath.Glob(filepath.Join("/tmp/lnbench", id[1])); len(matches) > 0 {
		t.Errorf("up's data dir not removed: %v", matches)
	}
}
