package btcd

import (
	"context"
	"fmt"
	"os"

	"github.com/btcsuite/btcd/chaincfg/chainhash"
	"github.com/btcsuite/btcd/rpcclient"
	"github.com/btcsuite/btcd/wire"
)

// Client is the harness's handle on the chain: mining and raw transactions.
type Client struct {
	rpc *rpcclient.Client
}

// Dial connects over HTTPS POST (no websocket needed for what we do).
func Dial(hostPort, certPath, user, pass string) (*Client, error) {
	cert, err := os.ReadFile(certPath)
	if err != nil {
		return nil, fmt.Errorf("btcd rpc cert: %v", err)
	}
	c, err := rpcclient.New(&rpcclient.ConnConfig{
		Host: hostPort, User: user, Pass: pass, Certificates: cert,
		HTTPPostMode: true,
	}, nil)
	if err != nil {
		return nil, fmt.Errorf("btcd rpc: %v", err)
	}
	return &Client{rpc: c}, nil
}

// Close releases the connection.
func (c *Client) Close() { c.rpc.Shutdown() }

// Mine generates n blocks to the chain's mining address.
func (c *Client) Mine(ctx context.Context, n uint32) ([]*chainhash.Hash, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	hashes, err := c.rpc.Generate(n)
	if err != nil {
		return nil, fmt.Errorf("btcd generate %d: %v", n, err)
	}
	return hashes, nil
}

// Height is the chain tip height.
func (c *Client) Height(ctx context.Context) (int64, error) {
	h, err := c.rpc.GetBlockCount()
	if err != nil {
		return 0, fmt.Errorf("btcd getblockcount: %v", err)
	}
	return h, nil
}

// Block fetches a block by hash.
func (c *Client) Block(ctx context.Context, h *chainhash.Hash) (*wire.MsgBlock, error) {
	b, err := c.rpc.GetBlock(h)
	if err != nil {
		return nil, fmt.Errorf("btcd getblock: %v", err)
	}
	return b, nil
}

// Send broadcasts a signed transaction.
func (c *Client) Send(ctx context.Context, tx *wire.MsgTx) (*chainhash.Hash, error) {
	h, err := c.rpc.SendRawTransaction(tx, true)
	if err != nil {
		return nil, fmt.Errorf("btcd sendrawtransaction: %v", err)
	}
	return h, nil
}

// MempoolSize is the number of transactions waiting for a block.
func (c *Client) MempoolSize(ctx context.Context) (int, error) {
	hs, err := c.rpc.GetRawMempool()
	if err != nil {
		return 0, fmt.Errorf("btcd getrawmempool: %v", err)
	}
	return len(hs), nil
}
