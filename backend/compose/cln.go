package compose

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/backend/orchestrator"
	"github.com/lnbench/lnbench/chain/btcd"
	"github.com/lnbench/lnbench/composefile"
	"github.com/lnbench/lnbench/node/cln"
	"github.com/lnbench/lnbench/node/cln/routelog"
)

// waitCLN waits until lightningd answers getinfo through its container's
// RPC bridge (harnessHost); a bridge alone (socat is up before
// lightningd's socket) does not count.
func (b *Backend) waitCLN(ctx context.Context, ep backend.NodeEndpoint) (backend.NodeEndpoint, error) {
	_, err := b.waiting().Ready(ctx, b, "node", ep.Name, func(t orchestrator.Task) bool {
		ep.RPCHost = b.harnessHost(ctx, t, composefile.ClnRPCPort, func(hostPort string) bool {
			return cln.Answers(ctx, hostPort)
		})
		return ep.RPCHost != ""
	})
	if err != nil {
		return backend.NodeEndpoint{}, err
	}
	// The wallet is on the node's bind mount, readable from here.
	ep.Database = cln.SQLitePrefix + cln.WalletFile(b.DataFolder(ep.Name))
	ep.RouteLog = filepath.Join(b.DataFolder(ep.Name), cln.Network, routelog.FileName)
	return ep, nil
}

// writePerfSeccomp writes CLN containers' seccomp profile beside the
// compose file and returns its absolute path.
func writePerfSeccomp(artifacts string) (string, error) {
	data, err := composefile.PerfSeccomp()
	if err != nil {
		return "", fmt.Errorf("seccomp profile: %v", err)
	}
	path, err := filepath.Abs(filepath.Join(artifacts, composefile.PerfSeccompFile))
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	return path, os.WriteFile(path, data, 0o644)
}

// logFiles are the log files a service writes on its bind mount, relative
// to it, for CollectLogs.
func (b *Backend) logFiles(service string) []string {
	network := b.chainNetwork()
	switch service {
	case composefile.ChainService:
		return []string{btcd.LogPath("", btcd.Network(network))}
	case composefile.SamplerService:
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, n := range b.spec.Nodes {
		if n.Name == service && n.IsCLN() {
			return []string{"lightningd.log", "perfserve.log"}
		}
	}
	return []string{filepath.Join("logs", "bitcoin", network, "lnd.log")}
}
