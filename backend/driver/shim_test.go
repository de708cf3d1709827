package driver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lnbench/lnbench/chain/bitcoincli"
	"github.com/lnbench/lnbench/topology"
)

func TestShimWarning(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "lnbench")
	lnd := topology.Topology{Nodes: []topology.Node{{Name: "alice", Implementation: "lnd"}}}
	cln := topology.Topology{Nodes: []topology.Node{{Name: "alice", Implementation: "lnd"}, {Name: "bob", Implementation: "cln"}}}
	if w := ShimWarning(exe, lnd); w != "" {
		t.Errorf("LND only: %q", w)
	}
	if w := ShimWarning(exe, cln); !strings.Contains(w, bitcoincli.StandaloneName) || !strings.Contains(w, "run.sh") {
		t.Errorf("CLN without the shim: %q, want the shim's name and the fix", w)
	}
	if err := os.WriteFile(filepath.Join(dir, bitcoincli.StandaloneName), nil, 0o700); err != nil {
		t.Fatal(err)
	}
	if w := ShimWarning(exe, cln); w != "" {
		t.Errorf("CLN with the shim beside: %q", w)
	}
}
