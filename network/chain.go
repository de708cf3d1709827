package network

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/chain/btcd"
)

// Chain is what setup needs from the private chain: blocks on demand and a
// faucet that funds wallets.
type Chain interface {
	// Mature makes coins coinbases spendable by the faucet.
	Mature(ctx context.Context, coins int) error
	// Fund pays each address its amount; a mined block confirms it.
	Fund(ctx context.Context, amounts map[string]int64) error
	Mine(ctx context.Context, blocks uint32) error
	Height(ctx context.Context) (int64, error)
	MempoolSize(ctx context.Context) (int, error)
	// WriteBlocks saves the blocks above genesis for ReplayBlocks, which
	// rebuilds a chain whose data its program erases at start.
	WriteBlocks(ctx context.Context, w io.Writer) error
	ReplayBlocks(ctx context.Context, r io.Reader) error
	Close()
}

// ChainStarter starts the chain on a backend and connects to it.
type ChainStarter func(ctx context.Context, be backend.Backend) (Chain, backend.ChainEndpoint, error)

// StartBtcdFor starts btcd mining to a harness-owned faucet key (so wallets
// are funded without restarting btcd), with its
// RPC limits sized for that many nodes, and connects to it.
func StartBtcdFor(nodes int, net btcd.Network) ChainStarter {
	return func(ctx context.Context, be backend.Backend) (Chain, backend.ChainEndpoint, error) {
		return startBtcd(ctx, be, nodes, net)
	}
}

func startBtcd(ctx context.Context, be backend.Backend, nodes int, net btcd.Network) (Chain, backend.ChainEndpoint, error) {
	f, err := btcd.NewFaucet(net)
	if err != nil {
		return nil, backend.ChainEndpoint{}, err
	}
	ep, err := be.StartChain(ctx, backend.ChainSpec{Network: string(net.Or()), MiningAddr: f.Address(), RPCUser: "lnbench", RPCPass: randomHex(16), Nodes: nodes})
	if err != nil {
		return nil, ep, err
	}
	c, err := btcd.Dial(ep.RPCHost, ep.CertPath, ep.User, ep.Pass)
	if err != nil {
		return nil, ep, err
	}
	return btcdChain{client: c, faucet: f}, ep, nil
}

type btcdChain struct {
	client *btcd.Client
	faucet *btcd.Faucet
}

func (b btcdChain) Mature(ctx context.Context, coins int) error {
	return b.faucet.Mature(ctx, b.client, coins)
}

func (b btcdChain) Fund(ctx context.Context, amounts map[string]int64) error {
	_, err := b.faucet.Fund(ctx, b.client, amounts)
	return err
}

func (b btcdChain) Mine(ctx context.Context, blocks uint32) error {
	_, err := b.client.Mine(ctx, blocks)
	return err
}

func (b btcdChain) Height(ctx context.Context) (int64, error) { return b.client.Height(ctx) }

func (b btcdChain) MempoolSize(ctx context.Context) (int, error) { return b.client.MempoolSize(ctx) }

func (b btcdChain) WriteBlocks(ctx context.Context, w io.Writer) error {
	_, err := b.client.WriteBlocks(ctx, w)
	return err
}

func (b btcdChain) ReplayBlocks(ctx context.Context, r io.Reader) error {
	_, err := b.client.ReplayBlocks(ctx, r)
	return err
}

func (b btcdChain) Close() { b.client.Close() }

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
