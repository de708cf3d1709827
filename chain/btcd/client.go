package btcd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/btcsuite/btcd/btcutil"
	"github.com/btcsuite/btcd/chaincfg/chainhash"
	"github.com/btcsuite/btcd/rpcclient"
	"github.com/btcsuite/btcd/wire"
)

// Client is the harness's handle on the chain: mining and raw transactions.
type Client struct {
	rpc *rpcclient.Client
}

// Dial makes a client that speaks HTTPS POST (no websocket needed for what
// we do); it connects on the first call, so a bad address shows there.
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
	hashes, err := call(ctx, func() ([]*chainhash.Hash, error) { return c.rpc.Generate(n) })
	if err != nil {
		return nil, fmt.Errorf("btcd generate %d: %w", n, err)
	}
	return hashes, nil
}

// Height is the chain tip height.
func (c *Client) Height(ctx context.Context) (int64, error) {
	h, err := call(ctx, c.rpc.GetBlockCount)
	if err != nil {
		return 0, fmt.Errorf("btcd getblockcount: %w", err)
	}
	return h, nil
}

// Block fetches a block by hash.
func (c *Client) Block(ctx context.Context, h *chainhash.Hash) (*wire.MsgBlock, error) {
	b, err := call(ctx, func() (*wire.MsgBlock, error) { return c.rpc.GetBlock(h) })
	if err != nil {
		return nil, fmt.Errorf("btcd getblock: %w", err)
	}
	return b, nil
}

// WriteBlocks writes the chain's blocks above genesis, tip last, in the
// wire encoding one after another: what ReplayBlocks submits to a chain
// that starts empty (btcd erases a regtest chain's database at every start).
func (c *Client) WriteBlocks(ctx context.Context, w io.Writer) (int64, error) {
	tip, err := c.Height(ctx)
	if err != nil {
		return 0, err
	}
	bw := bufio.NewWriter(w)
	for h := int64(1); h <= tip; h++ {
		hash, err := call(ctx, func() (*chainhash.Hash, error) { return c.rpc.GetBlockHash(h) })
		if err != nil {
			return h - 1, fmt.Errorf("btcd getblockhash %d: %w", h, err)
		}
		b, err := c.Block(ctx, hash)
		if err != nil {
			return h - 1, err
		}
		if err := b.Serialize(bw); err != nil {
			return h - 1, err
		}
	}
	return tip, bw.Flush()
}

// ReplayBlocks submits the blocks r holds (as WriteBlocks wrote them), in
// order, and returns how many the chain took.
func (c *Client) ReplayBlocks(ctx context.Context, r io.Reader) (int, error) {
	br := bufio.NewReader(r)
	n := 0
	for {
		var b wire.MsgBlock
		if err := b.Deserialize(br); errors.Is(err, io.EOF) {
			return n, nil
		} else if err != nil {
			return n, fmt.Errorf("block %d of the replay: %w", n+1, err)
		}
		if _, err := call(ctx, func() (struct{}, error) { return struct{}{}, c.rpc.SubmitBlock(btcutil.NewBlock(&b), nil) }); err != nil {
			return n, fmt.Errorf("btcd submitblock %d (%s): %w", n+1, b.BlockHash(), err)
		}
		n++
	}
}

// Send broadcasts a signed transaction.
func (c *Client) Send(ctx context.Context, tx *wire.MsgTx) (*chainhash.Hash, error) {
	h, err := call(ctx, func() (*chainhash.Hash, error) { return c.rpc.SendRawTransaction(tx, true) })
	if err != nil {
		return nil, fmt.Errorf("btcd sendrawtransaction: %w", err)
	}
	return h, nil
}

// MempoolSize is the number of transactions waiting for a block.
func (c *Client) MempoolSize(ctx context.Context) (int, error) {
	hs, err := call(ctx, c.rpc.GetRawMempool)
	if err != nil {
		return 0, fmt.Errorf("btcd getrawmempool: %w", err)
	}
	return len(hs), nil
}

// call runs a blocking RPC and returns when it ends or when ctx does,
// whichever is first. rpcclient has no per-call cancellation: an abandoned
// call ends in the background within its HTTP timeout (a minute) or at
// Close, and its result is dropped.
func call[T any](ctx context.Context, rpc func() (T, error)) (T, error) {
	var zero T
	if err := ctx.Err(); err != nil {
		return zero, err
	}
	type outcome struct {
		v   T
		err error
	}
	done := make(chan outcome, 1) // buffered: an abandoned call does not block
	go func() {
		v, err := rpc()
		done <- outcome{v, err}
	}()
	select {
	case o := <-done:
		return o.v, o.err
	case <-ctx.Done():
		return zero, ctx.Err()
	}
}
