package cln

import (
	"context"
	"database/sql"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx": a node on db=postgres
	_ "modernc.org/sqlite"             // database/sql driver "sqlite": CLN's default wallet, pure Go

	"github.com/lnbench/lnbench/node"
)

// DBNode is a CLN node whose database the harness can read: CLN's RPC
// tells no channel's commitment number, its wallet does
// (channels.next_index_local), so the bound line can count commitment
// updates per payment as it does from LND's ListChannels.
type DBNode struct {
	*Driver
	source string // SQLitePrefix+path or a postgres:// URL

	mu sync.Mutex
	db *sql.DB
}

// SQLitePrefix marks an Endpoint.Database that is a SQLite file.
const SQLitePrefix = "sqlite:"

// WalletFile is lightningd's SQLite wallet under a lightning dir.
func WalletFile(lightningDir string) string {
	return filepath.Join(lightningDir, Network, "lightningd.sqlite3")
}

// ChannelStates reads the channels with listpeerchannels and each one's
// local commitment number from the wallet, read-only.
func (n *DBNode) ChannelStates(ctx context.Context) ([]node.ChannelState, error) {
	var r struct {
		Channels []struct {
			peerChannel
			ChannelID        string     `json:"channel_id"`
			FundingTxID      string     `json:"funding_txid"`
			FundingOutnum    int        `json:"funding_outnum"`
			Opener           string     `json:"opener"`
			HTLCs            []struct{} `json:"htlcs"` // counted, not read
			MaxAcceptedHTLCs int        `json:"max_accepted_htlcs"`
		} `json:"channels"`
	}
	if err := n.call(ctx, "listpeerchannels", nil, &r); err != nil {
		return nil, err
	}
	heights, err := n.commitmentHeights(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: reading its wallet's channels: %w", n.name, err)
	}
	out := make([]node.ChannelState, 0, len(r.Channels))
	for _, c := range r.Channels {
		if c.State != "CHANNELD_NORMAL" {
			continue
		}
		next, ok := heights[strings.ToLower(c.ChannelID)]
		if !ok {
			return nil, fmt.Errorf("%s: channel %s is not in its wallet", n.name, c.ChannelID)
		}
		out = append(out, node.ChannelState{ChanPoint: fmt.Sprintf("%s:%d", c.FundingTxID, c.FundingOutnum), PeerPubKey: c.PeerID,
			Initiator: c.Opener != "remote", NumUpdates: next - 1, PendingHTLCs: len(c.HTLCs), MaxAcceptedHTLCs: c.MaxAcceptedHTLCs})
	}
	return out, nil
}

// commitmentHeights maps each channel id (hex) to its next local
// commitment index.
func (n *DBNode) commitmentHeights(ctx context.Context) (map[string]uint64, error) {
	db, err := n.open()
	if err != nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, "SELECT full_channel_id, next_index_local FROM channels")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]uint64{}
	for rows.Next() {
		var id []byte
		var next int64
		if err := rows.Scan(&id, &next); err != nil {
			return nil, err
		}
		out[hex.EncodeToString(id)] = uint64(next)
	}
	return out, rows.Err()
}

func (n *DBNode) open() (*sql.DB, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.db != nil {
		return n.db, nil
	}
	driver, dsn := "pgx", n.source
	if path, ok := strings.CutPrefix(n.source, SQLitePrefix); ok {
		// Read-only, and waiting out lightningd's write transactions
		// rather than failing on them.
		driver, dsn = "sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(2000)"
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	n.db = db
	return db, nil
}

// Close closes the wallet's connection, then the node's.
func (n *DBNode) Close() error {
	n.mu.Lock()
	if n.db != nil {
		n.db.Close()
		n.db = nil
	}
	n.mu.Unlock()
	return n.Driver.Close()
}

var _ node.ChannelReader = (*DBNode)(nil)
