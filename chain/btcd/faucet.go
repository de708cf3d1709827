package btcd

import (
	"context"
	"fmt"
	"sort"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcutil"
	"github.com/btcsuite/btcd/chaincfg/chainhash"
	"github.com/btcsuite/btcd/txscript"
	"github.com/btcsuite/btcd/wire"
)

// Faucet owns the key that btcd mines to, so the harness can fund wallets
// without restarting btcd with a node's address (btcd has no generatetoaddress).
type Faucet struct {
	net  Network
	key  *btcec.PrivateKey
	addr *btcutil.AddressPubKeyHash
	// coinbases are mined, unspent coinbase blocks in mining order.
	coinbases []*chainhash.Hash
}

// NewFaucet makes a fresh key; its address goes into btcd's --miningaddr.
func NewFaucet(net Network) (*Faucet, error) {
	key, err := btcec.NewPrivateKey()
	if err != nil {
		return nil, err
	}
	addr, err := btcutil.NewAddressPubKeyHash(btcutil.Hash160(key.PubKey().SerializeCompressed()), net.Params())
	if err != nil {
		return nil, err
	}
	return &Faucet{net: net, key: key, addr: addr}, nil
}

// Address is the P2PKH address btcd mines to.
func (f *Faucet) Address() string { return f.addr.EncodeAddress() }

// Mature mines enough blocks for `coins` coinbases to be spendable and for
// segwit to be active, and remembers the coinbases. Each is 50 BTC.
func (f *Faucet) Mature(ctx context.Context, c *Client, coins int) error {
	need := max(uint32(coins)+uint32(f.net.Params().CoinbaseMaturity), f.net.SegwitHeight())
	hashes, err := c.Mine(ctx, need)
	if err != nil {
		return err
	}
	f.coinbases = append(f.coinbases, hashes[:coins]...)
	return nil
}

// Fund pays each address its amount from matured coinbases in one
// transaction per coinbase, and returns the number of transactions sent.
// The caller mines a block to confirm them.
func (f *Faucet) Fund(ctx context.Context, c *Client, amounts map[string]int64) (int, error) {
	const fee = 100_000 // generous fixed fee; simnet coins are free
	addrs := make([]string, 0, len(amounts))
	for a := range amounts {
		addrs = append(addrs, a)
	}
	sort.Strings(addrs) // deterministic transactions for a given set
	sent := 0
	for len(addrs) > 0 {
		if len(f.coinbases) == 0 {
			return sent, fmt.Errorf("faucet: out of matured coinbases; mature more before funding")
		}
		cbHash := f.coinbases[0]
		f.coinbases = f.coinbases[1:]
		blk, err := c.Block(ctx, cbHash)
		if err != nil {
			return sent, err
		}
		cb := blk.Transactions[0]
		value := cb.TxOut[0].Value
		tx := wire.NewMsgTx(2)
		tx.AddTxIn(wire.NewTxIn(&wire.OutPoint{Hash: cb.TxHash(), Index: 0}, nil, nil))
		remaining := value - fee
		for len(addrs) > 0 && amounts[addrs[0]] <= remaining-int64(len(tx.TxOut)+1)*1000 {
			a := addrs[0]
			script, err := payTo(a, f.net)
			if err != nil {
				return sent, err
			}
			tx.AddTxOut(wire.NewTxOut(amounts[a], script))
			remaining -= amounts[a]
			addrs = addrs[1:]
		}
		if len(tx.TxOut) == 0 {
			return sent, fmt.Errorf("faucet: %d sat for %s exceeds one coinbase (%d sat); use smaller channel capacities", amounts[addrs[0]], addrs[0], value)
		}
		change, _ := txscript.PayToAddrScript(f.addr)
		if remaining > 10_000 {
			tx.AddTxOut(wire.NewTxOut(remaining, change))
		}
		sig, err := txscript.SignatureScript(tx, 0, cb.TxOut[0].PkScript, txscript.SigHashAll, f.key, true)
		if err != nil {
			return sent, fmt.Errorf("faucet: signing: %v", err)
		}
		tx.TxIn[0].SignatureScript = sig
		if _, err := c.Send(ctx, tx); err != nil {
			return sent, err
		}
		sent++
	}
	return sent, nil
}

func payTo(addr string, net Network) ([]byte, error) {
	a, err := btcutil.DecodeAddress(addr, net.Params())
	if err != nil {
		return nil, fmt.Errorf("faucet: address %q: %v", addr, err)
	}
	return txscript.PayToAddrScript(a)
}
