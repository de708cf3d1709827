// Package snapshot keeps ready networks. After setup (chain mined, wallets
// funded, channels open, every route known) lnbench saves the chain's data
// and every node's data folder with a manifest, in a cache keyed by what
// determines the network; a later launch that asks for the same network
// restores it instead of building it again.
//
// This package is the cache: the key, the manifest, atomic saves, restores,
// listing, pruning, setting a bad snapshot aside, and export and import as
// one file. It copies folders and knows nothing of nodes: what the folders
// are, and how a restored network is brought up, is the caller's.
package snapshot

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// Format is the layout of a snapshot; a cache entry of another format is
// never restored (it is listed, and pruned like any other).
const Format = 1

// Facts are what determine a network: two setups with equal facts build
// the same network, so one may be restored for the other.
type Facts struct {
	// Topology is the network's topology in a canonical form (generated
	// graphs with their seed, channel sizes and funding included).
	Topology string `json:"topology"`
	// Chain is the chain's build key and parameters ("btcd KEY simnet").
	Chain string `json:"chain"`
	// Backend lays the folders out (local processes and compose's
	// containers keep their data at different paths within them).
	Backend string `json:"backend"`
	// Actors are the chain's and each node's facts, by name.
	Actors map[string]ActorFacts `json:"actors"`
}

// ActorFacts are what determine one node's data: its implementation and
// build key (a build's database may not read another's), and its
// settings (profile, flags, database backend).
type ActorFacts struct {
	Implementation string   `json:"implementation"`
	Build          string   `json:"build"`
	Settings       []string `json:"settings,omitempty"`
}

// Key is the cache key of the facts: the first 16 bytes of the SHA-256 of
// their canonical JSON (encoding/json sorts map keys), with the format.
func Key(f Facts) string {
	data, err := json.Marshal(struct {
		Format int   `json:"format"`
		Facts  Facts `json:"facts"`
	}{Format, f})
	if err != nil {
		panic(err) // strings, slices and maps of them always marshal
	}
	sum := sha256.Sum256(data)
	return "net-" + hex.EncodeToString(sum[:8])
}

// Manifest describes a saved network.
type Manifest struct {
	Format int       `json:"format"`
	Key    string    `json:"key"`
	Facts  Facts     `json:"facts"`
	Made   time.Time `json:"made"`
	// By is the lnbench that made it (its version or commit).
	By string `json:"by"`
	// Folders are the saved folders, by actor name, each with its size.
	Folders map[string]int64 `json:"folders"`
	// State is what the network's data refers to that a restore needs
	// (public keys, the chain's height, the faucet's key), as the caller
	// wrote it; this package keeps it and does not read it.
	State json.RawMessage `json:"state,omitempty"`
}

// Bytes is the snapshot's size on disk.
func (m Manifest) Bytes() int64 {
	var n int64
	for _, b := range m.Folders {
		n += b
	}
	return n
}

// Actors are the saved folders' names, sorted.
func (m Manifest) Actors() []string {
	var out []string
	for a := range m.Folders {
		out = append(out, a)
	}
	slices.Sort(out)
	return out
}

// Check refuses a manifest that does not describe the facts asked for.
func (m Manifest) Check(key string, f Facts) error {
	if m.Format != Format {
		return fmt.Errorf("snapshot %s has format %d, this lnbench reads %d", m.Key, m.Format, Format)
	}
	if m.Key != key || Key(m.Facts) != key || Key(f) != key {
		return fmt.Errorf("snapshot %s was made for another network (its facts give %s, this network's %s)", m.Key, Key(m.Facts), Key(f))
	}
	return nil
}

// Size is a size in bytes for people: KiB, MiB or GiB.
func Size(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.0f KiB", float64(n)/(1<<10))
}
