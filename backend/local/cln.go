package local

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/chain/bitcoincli"
	"github.com/lnbench/lnbench/node/cln"
	"github.com/lnbench/lnbench/node/cln/routelog"
	"github.com/lnbench/lnbench/nodespec"
)

// startCLN starts one lightningd on the regtest chain and waits until its
// RPC socket answers. binDir holds lightningd (its subdaemons and plugins
// are in ../libexec/c-lightning, where lightningd looks for them).
func (b *Backend) startCLN(ctx context.Context, spec backend.NodeSpec, binDir, dir string) (backend.NodeEndpoint, error) {
	b.mu.Lock()
	btcdHost, chain, network, btcdDir := b.btcdHost, b.chain, b.network, b.btcdDir
	b.mu.Unlock()
	if network != cln.Network {
		return backend.NodeEndpoint{}, fmt.Errorf("node %s: CLN needs a %s chain, this run's is %s", spec.Name, cln.Network, network)
	}
	shim, err := b.lnbenchAs(dir, "bitcoin-cli")
	if err != nil {
		return backend.NodeEndpoint{}, fmt.Errorf("node %s: %v", spec.Name, err)
	}
	plugin, err := b.lnbenchAs(dir, routelog.PluginName)
	if err != nil {
		return backend.NodeEndpoint{}, fmt.Errorf("node %s: %v", spec.Name, err)
	}
	p2p, err := allocated.next()
	if err != nil {
		return backend.NodeEndpoint{}, err
	}
	host, port, err := net.SplitHostPort(btcdHost)
	if err != nil {
		return backend.NodeEndpoint{}, err
	}
	cfg := cln.Config{
		Alias: spec.Name, LightningDir: dir, P2PListen: hostPort(p2p),
		BitcoinCLI: shim, BitcoinDataDir: btcdDir, Plugin: plugin,
		BtcdRPCHost: host, BtcdRPCPort: port, BtcdRPCUser: chain.User, BtcdRPCPass: chain.Pass,
		Extra: spec.ExtraArgs,
	}
	if spec.DBBackend == nodespec.DBPostgres {
		if cfg.Wallet, err = b.postgresDSN(ctx, spec.Name); err != nil {
			return backend.NodeEndpoint{}, err
		}
	}
	args := cfg.Args()
	p, err := startProcOn(b.opts.CPUs, spec.Name, filepath.Join(binDir, "lightningd"), args, filepath.Join(dir, "stdout.log"), spec.Env...)
	if err != nil {
		return backend.NodeEndpoint{}, err
	}
	sock := cln.SocketPath(dir)
	ep := backend.NodeEndpoint{Name: spec.Name, RPCHost: "unix:" + sock, PeerHost: cfg.P2PListen, Args: args,
		Database: cln.SQLitePrefix + cln.WalletFile(dir), RouteLog: filepath.Join(dir, cln.Network, routelog.FileName)}
	if cfg.Wallet != "" {
		ep.Database = cfg.Wallet
	}
	p.dataDir = dir
	if b.opts.Pprof {
		// Not p.pprofHost: that one is read for Go's goroutines and heap.
		if ep.PprofHost, err = b.servePerf(spec.Name); err != nil {
			p.stop(15 * time.Second)
			return backend.NodeEndpoint{}, err
		}
	}
	// Answering, not just present: a killed lightningd leaves its socket
	// file behind, so a restart would look ready at once.
	p.ready = func() bool { return cln.Answers(context.Background(), "unix:"+sock) }
	return b.awaitNode(ctx, p, ep)
}

// lnbenchAs makes dir/bin/NAME, a symlink to the lnbench binary: reached
// as bitcoin-cli it is the bitcoin-cli shim (the standalone one where it
// lies beside lnbench, bitcoincli.Beside), as routelog.PluginName the route
// log plugin.
func (b *Backend) lnbenchAs(dir, name string) (string, error) {
	exe := b.opts.BitcoinCLI
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return "", fmt.Errorf("the lnbench binary for %s: %v", name, err)
		}
	}
	if name == "bitcoin-cli" {
		exe = bitcoincli.Beside(exe)
	}
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o700); err != nil {
		return "", err
	}
	link := filepath.Join(bin, name)
	if err := os.Symlink(exe, link); err != nil && !os.IsExist(err) {
		return "", err
	}
	return link, nil
}
