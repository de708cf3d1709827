package compose

import (
	"context"
	"path/filepath"
	"time"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/composefile"
	"github.com/lnbench/lnbench/node/cln"
)

// waitCLN waits until lightningd answers getinfo through its container's
// RPC bridge on the published port; a bridge alone (socat is up before
// lightningd's socket) does not count.
func (b *Backend) waitCLN(ctx context.Context, ep backend.NodeEndpoint) (backend.NodeEndpoint, error) {
	_, err := b.waitReady(ctx, "node", ep.Name, func(id string) bool {
		if ep.RPCHost == "" {
			ep.RPCHost, _ = PublishedPort(ctx, id, composefile.ClnRPCPort)
		}
		return ep.RPCHost != "" && clnAnswers(ctx, ep.RPCHost)
	})
	if err != nil {
		return backend.NodeEndpoint{}, err
	}
	return ep, nil
}

func clnAnswers(ctx context.Context, host string) bool {
	c, err := cln.NewClient(host)
	if err != nil {
		return false
	}
	defer c.Close()
	cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	return c.Call(cctx, "getinfo", nil, nil) == nil
}

// logFiles are the log files a service writes on its bind mount, relative
// to it, for CollectLogs.
func (b *Backend) logFiles(service string) []string {
	network := b.chainNetwork()
	switch service {
	case composefile.ChainService:
		return []string{filepath.Join("logs", network, "btcd.log")}
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
