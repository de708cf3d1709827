package runner

import (
	"slices"
	"strings"
	"testing"

	"github.com/lnbench/lnbench/node/lnd"
	"github.com/lnbench/lnbench/scenario"
)

// TestFootprintAddsFlagsAndEnv: a spec's footprint adds its flags after
// the profile's and its environment, and the report names it.
func TestFootprintAddsFlagsAndEnv(t *testing.T) {
	h := &harness{}
	ds := h.fleet.Drivers("lnd")
	drv := ds["lnd"]
	drv.Footprint = lnd.Footprint
	ds["lnd"] = drv
	s := smallScenario()
	s.Nodes, _ = scenario.ParseNodeFlags([]string{"lnd@v0.21.0-beta", "lnd@v0.21.0-beta+footprint=small"})
	configs, infos, err := NodeSetup(ds, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	small, plain := configs["v0.21.0-beta+small"], configs["v0.21.0-beta"]
	if !slices.Equal(small.Env, []string{"GOGC=50"}) || len(plain.Env) != 0 {
		t.Errorf("env: small %v, default %v", small.Env, plain.Env)
	}
	if want := []string{"--profile=default", "--blockcachesize=1048576", "--caches.reject-cache-size=5000", "--caches.channel-cache-size=2000", "--extra"}; !slices.Equal(small.Args, want) {
		t.Errorf("args %q, want %q", small.Args, want)
	}
	if infos[1].Profile != "default+bbolt+small" || !slices.Equal(infos[1].Env, []string{"GOGC=50"}) || infos[0].Profile != "default+bbolt" {
		t.Errorf("infos %+v", infos)
	}
	// A driver without footprints refuses one, naming the spec.
	s.Nodes, _ = scenario.ParseNodeFlags([]string{"lnd@v0.21.0-beta+footprint=small"})
	if _, _, err := NodeSetup(h.fleet.Drivers("lnd"), s, nil); err == nil || !strings.Contains(err.Error(), `node spec v0.21.0-beta+small: footprint "small"`) {
		t.Errorf("err = %v", err)
	}
}
