// Package network turns a topology into a ready Lightning network on a
// backend: chain, funded wallets, open and active channels, usable routes.
package network

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/chain/btcd"
	"github.com/lnbench/lnbench/internal/wait"
	"github.com/lnbench/lnbench/node"
	"github.com/lnbench/lnbench/topology"
	"github.com/lnbench/lnbench/usage/footprint"
)

// Phase is the wall time of one setup step, recorded in the artifacts.
type Phase struct {
	Name    string    `json:"name"`
	Seconds float64   `json:"seconds"`
	Start   time.Time `json:"start"`
}

// Network is a running topology.
type Network struct {
	Topology  topology.Topology
	Chain     Chain
	ChainEP   backend.ChainEndpoint
	Nodes     map[string]node.Node
	Endpoints map[string]backend.NodeEndpoint
	PubKeys   map[string]string
	Phases    []Phase

	mu sync.Mutex // guards the maps while nodes start in parallel
	// drivers dial a restarted node again (Redial).
	drivers node.Drivers
}

// Options tune setup.
type Options struct {
	// Drivers dial each node by its topology implementation (package
	// drivers has the shipped ones).
	Drivers node.Drivers
	// StartChain starts and connects to the chain; nil means btcd sized for the topology (StartBtcdFor).
	StartChain ChainStarter
	DBBackend  string
	NodeArgs   []string
	// Configs are the settings of each node spec, by label (topology
	// Node.Spec); nodes whose spec has none start with DBBackend and NodeArgs.
	Configs map[string]backend.NodeConfig
	Log     io.Writer
	// PhaseTimeout bounds each setup phase; 0 is 3 min plus 5 s per node.
	PhaseTimeout time.Duration
	// StartParallel bounds the nodes starting at once; 0 sizes it from
	// this machine's cores (StartsPerCore each, 0: footprint.StartsPerCore)
	// and available memory, with nodes of NodeBytes each (0:
	// footprint.NodeBytes).
	StartParallel int
	StartsPerCore int
	NodeBytes     int64

	// ChainBlocks, for Restore, is a file of the chain's blocks
	// (Chain.WriteBlocks) replayed once it starts: btcd erases a regtest
	// chain's database at every start, so its restored data is gone.
	ChainBlocks string

	// OnPhase, when set, hears each setup phase's name as it begins
	// ("chain", "nodes", "fund", "channels", "routes").
	OnPhase func(name string)

	// now and after replace the clock in unit tests.
	now   func() time.Time
	after func(time.Duration) <-chan time.Time
}

// Up starts and prepares the whole network. On error the caller tears the
// backend down; whatever started is still tracked there.
func Up(ctx context.Context, be backend.Backend, topo topology.Topology, opts Options) (*Network, error) {
	return bringUp(ctx, be, topo, opts, func(n *Network, opts Options) []step {
		return []step{
			{"chain", func(ctx context.Context) error { return n.startChain(ctx, be, opts.StartChain) }},
			{"nodes", func(ctx context.Context) error { return n.startNodes(ctx, be, opts) }},
			{"fund", n.fund},
			{"channels", n.openChannels},
			{"routes", func(ctx context.Context) error { return n.waitRoutes(ctx, opts.Log) }},
		}
	})
}

// Restore brings up a network whose data a snapshot put in the backend's
// folders (package snapshot): the chain on its data, one block mined (the
// snapshot's tip is as old as the snapshot, and LND counts a node synced
// only to a recent tip), the nodes on theirs, every channel's peers
// connected at their new addresses and every channel active, then the
// routes checked as Up checks them. On error the caller tears the backend
// down.
func Restore(ctx context.Context, be backend.Backend, topo topology.Topology, opts Options) (*Network, error) {
	return bringUp(ctx, be, topo, opts, func(n *Network, opts Options) []step {
		return []step{
			{"chain", func(ctx context.Context) error { return n.restartChain(ctx, be, opts.StartChain, opts.ChainBlocks) }},
			{"nodes", func(ctx context.Context) error { return n.startNodes(ctx, be, opts) }},
			{"channels", func(ctx context.Context) error { return n.reopenChannels(ctx, opts.Log) }},
			{"routes", func(ctx context.Context) error { return n.waitRoutes(ctx, opts.Log) }},
		}
	})
}

// step is one setup phase.
type step struct {
	name string
	fn   func(context.Context) error
}

func bringUp(ctx context.Context, be backend.Backend, topo topology.Topology, opts Options, stepsOf func(*Network, Options) []step) (*Network, error) {
	if opts.PhaseTimeout == 0 {
		// Nodes start a few at a time: a large network needs longer, not
		// because anything stalls (25 LNDs took 87 s to start here).
		opts.PhaseTimeout = 3*time.Minute + time.Duration(len(topo.Nodes))*5*time.Second
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	if opts.StartChain == nil {
		opts.StartChain = StartBtcdFor(len(topo.Nodes), ChainNetwork(topo))
	}
	if opts.now == nil {
		opts.now = time.Now
	}
	if opts.StartParallel == 0 {
		available, err := footprint.MemAvailable()
		if err != nil {
			available = footprint.StartPeakBytes // unknown: start one at a time
		}
		opts.StartParallel = footprint.StartParallelism(runtime.NumCPU(), cmp.Or(opts.StartsPerCore, footprint.StartsPerCore), available, len(topo.Nodes), cmp.Or(opts.NodeBytes, footprint.NodeBytes))
	}
	// Every node's driver is known before anything starts.
	for _, nd := range topo.Nodes {
		if nd.Implementation == "" {
			return nil, fmt.Errorf("node %s: the topology gives no implementation (topology.WithDefaults fills it)", nd.Name)
		}
		if _, err := opts.Drivers.Lookup(nd.Implementation); err != nil {
			return nil, fmt.Errorf("node %s: %w", nd.Name, err)
		}
	}
	n := &Network{Topology: topo, Nodes: map[string]node.Node{}, Endpoints: map[string]backend.NodeEndpoint{}, PubKeys: map[string]string{}, drivers: opts.Drivers}
	for _, s := range stepsOf(n, opts) {
		fmt.Fprintf(opts.Log, "setup: %s…\n", s.name)
		if opts.OnPhase != nil {
			opts.OnPhase(s.name)
		}
		start := opts.now()
		pctx, cancel := opts.phaseContext(ctx, s.name)
		err := s.fn(pctx)
		if err != nil && pctx.Err() != nil && ctx.Err() == nil {
			err = fmt.Errorf("%w: %v", context.Cause(pctx), err)
		}
		cancel()
		d := opts.now().Sub(start)
		n.Phases = append(n.Phases, Phase{Name: s.name, Seconds: d.Seconds(), Start: start})
		if err != nil {
			return n, fmt.Errorf("setup %s: %w", s.name, err)
		}
	}
	return n, nil
}

// phaseContext bounds one setup phase; the cause names the phase.
func (o Options) phaseContext(ctx context.Context, name string) (context.Context, context.CancelFunc) {
	cause := fmt.Errorf("setup phase %q took longer than %v", name, o.PhaseTimeout)
	if o.after == nil {
		return context.WithTimeoutCause(ctx, o.PhaseTimeout, cause)
	}
	pctx, cancel := context.WithCancelCause(ctx)
	stop := make(chan struct{})
	go func() {
		select {
		case <-o.after(o.PhaseTimeout):
			cancel(cause)
		case <-stop:
		}
	}()
	return pctx, func() { close(stop); cancel(nil) }
}

func (n *Network) startChain(ctx context.Context, be backend.Backend, start ChainStarter) error {
	c, ep, err := start(ctx, be)
	if err != nil {
		return err
	}
	n.Chain, n.ChainEP = c, ep
	// Mature one coinbase per funder before the nodes start, so they sync
	// a chain that already holds their funds' source.
	coins := len(n.Topology.Funders())
	return c.Mature(ctx, coins+1)
}

// SaveChainBlocks writes c's blocks to the file that Options.ChainBlocks
// replays on Restore.
func SaveChainBlocks(ctx context.Context, c Chain, path string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if err := c.WriteBlocks(ctx, f); err != nil {
		f.Close()
		return fmt.Errorf("saving the chain's blocks: %w", err)
	}
	return f.Close()
}

// restartChain starts the chain on restored data (replaying its blocks
// when a file of them is given) and mines one block, so that its tip is
// recent when the nodes start.
func (n *Network) restartChain(ctx context.Context, be backend.Backend, start ChainStarter, blocks string) error {
	c, ep, err := start(ctx, be)
	if err != nil {
		return err
	}
	n.Chain, n.ChainEP = c, ep
	if blocks != "" {
		f, err := os.Open(blocks)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := c.ReplayBlocks(ctx, f); err != nil {
			return fmt.Errorf("replaying the chain's blocks: %w", err)
		}
	}
	return c.Mine(ctx, 1)
}

// startNodes starts the nodes, StartParallel at a time, dials it through its
// implementation's driver and waits until it is ready (server active) and
// synced to the chain tip: only then may peers connect.
func (n *Network) startNodes(ctx context.Context, be backend.Backend, opts Options) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(opts.StartParallel) // a start peaks at ≈320 MiB
	for _, nd := range n.Topology.Nodes {
		g.Go(func() error {
			drv, err := opts.Drivers.Lookup(nd.Implementation)
			if err != nil {
				return fmt.Errorf("node %s: %w", nd.Name, err)
			}
			ep, err := be.StartNode(gctx, opts.nodeSpec(nd))
			if err != nil {
				return err
			}
			client, err := drv.Dial(nd.Name, node.Endpoint{RPCHost: ep.RPCHost, TLSCertPath: ep.TLSCertPath, MacaroonPath: ep.MacaroonPath, Database: ep.Database, RouteLog: ep.RouteLog})
			if err != nil {
				return err
			}
			n.mu.Lock()
			n.Nodes[nd.Name], n.Endpoints[nd.Name] = &handle{n: client}, ep
			n.mu.Unlock()
			if err := client.WaitReady(gctx); err != nil {
				return fmt.Errorf("node %s not ready: %w", nd.Name, err)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return n.waitSynced(ctx)
}

// waitSynced waits until every node is synced to the chain tip.
func (n *Network) waitSynced(ctx context.Context) error {
	tip, err := n.Chain.Height(ctx)
	if err != nil {
		return err
	}
	g, gctx := errgroup.WithContext(ctx)
	for name, nd := range n.Nodes {
		g.Go(func() error {
			var last node.Info
			err := wait.Until(gctx, pollEvery(len(n.Nodes)), func() bool {
				info, err := nd.Info(gctx)
				if err != nil {
					return false
				}
				last = info
				if info.PubKey != "" {
					n.setPubKey(name, info.PubKey)
				}
				return info.SyncedToChain && int64(info.BlockHeight) >= tip
			})
			if err != nil {
				return fmt.Errorf("%s not synced to height %d (at %d): %w", name, tip, last.BlockHeight, err)
			}
			return nil
		})
	}
	return g.Wait()
}

func (n *Network) setPubKey(name, pk string) {
	n.mu.Lock()
	n.PubKeys[name] = pk
	n.mu.Unlock()
}

// pollEvery is how often each node is asked while all of them are polled
// at once: 100 ms for a handful, slower as the network grows so the polls
// stay near 100 requests/s in all (a hundred nodes asked every 100 ms is
// a thousand gRPC calls/s on the same cores that run them), at most 1 s.
func pollEvery(nodes int) time.Duration {
	return min(max(100*time.Millisecond, time.Duration(nodes)*10*time.Millisecond), time.Second)
}

// fund sends each channel funder its capacity plus a fee margin, mines one
// block and waits until every wallet sees its confirmed balance.
func (n *Network) fund(ctx context.Context) error {
	funders := n.Topology.Funders()
	amounts := map[string]int64{}
	addrOf := map[string]string{}
	for name, sat := range funders {
		addr, err := n.Nodes[name].NewAddress(ctx)
		if err != nil {
			return err
		}
		amounts[addr] = sat + 1_000_000
		addrOf[name] = addr
	}
	if err := n.Chain.Fund(ctx, amounts); err != nil {
		return err
	}
	if err := n.Chain.Mine(ctx, 1); err != nil {
		return err
	}
	g, gctx := errgroup.WithContext(ctx)
	for name := range funders {
		want := amounts[addrOf[name]]
		g.Go(func() error {
			var have int64
			err := wait.Until(gctx, pollEvery(len(n.Nodes)), func() bool {
				have, _ = n.Nodes[name].ConfirmedBalance(gctx)
				return have >= want
			})
			if err != nil {
				return fmt.Errorf("%s: confirmed balance %d, want %d: %w", name, have, want, err)
			}
			return nil
		})
	}
	return g.Wait()
}

// openChannels connects peers, opens each funder's channels in one batch,
// mines 6 blocks (announcement depth) and waits until all are active.
func (n *Network) openChannels(ctx context.Context) error {
	byFunder := map[string][]topology.Channel{}
	want := map[string]int{}
	for _, c := range n.Topology.Channels {
		byFunder[c.From] = append(byFunder[c.From], c)
		want[c.From]++
		want[c.To]++
	}
	if err := n.connectPairsRetrying(ctx); err != nil {
		return err
	}
	g, gctx := errgroup.WithContext(ctx)
	for from, chans := range byFunder {
		g.Go(func() error {
			var reqs []node.ChannelRequest
			for _, c := range chans {
				reqs = append(reqs, node.ChannelRequest{PeerPubKey: n.PubKeys[c.To], CapacitySat: c.Capacity(), PushSat: c.PushSat})
			}
			return n.Nodes[from].OpenChannels(gctx, reqs)
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	if err := n.waitMempool(ctx, len(byFunder)); err != nil {
		return err
	}
	if err := n.Chain.Mine(ctx, 6); err != nil {
		return err
	}
	g, gctx = errgroup.WithContext(ctx)
	for name, count := range want {
		g.Go(func() error { return n.Nodes[name].WaitActiveChannels(gctx, count) })
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return n.waitSynced(ctx)
}

// reopenChannels connects the peers of every channel of a restored network
// at their new addresses and waits until every channel is active again.
func (n *Network) reopenChannels(ctx context.Context, log io.Writer) error {
	start := time.Now() // for the log line; the phase is timed by bringUp
	want := map[string]int{}
	for _, c := range n.Topology.Channels {
		want[c.From]++
		want[c.To]++
	}
	// A failed dial is dialled again below, with every peer still short:
	// 200 restarting nodes on 2 cores time some handshakes out.
	lastDial := n.connectPairs(ctx)
	dialled := time.Since(start)
	g, gctx := errgroup.WithContext(ctx)
	var mu sync.Mutex
	short := map[string]bool{} // nodes not yet with all their channels active
	for name := range want {
		short[name] = true
	}
	active := map[string]time.Duration{} // when each node had all its channels
	for name, count := range want {
		g.Go(func() error {
			if err := n.Nodes[name].WaitActiveChannels(gctx, count); err != nil {
				return err
			}
			mu.Lock()
			delete(short, name)
			active[name] = time.Since(start)
			mu.Unlock()
			return nil
		})
	}
	// A connection dropped before its channels reestablish is redialled
	// by the node at the peer's address in its snapshot, which is stale:
	// dial again now and then until every channel is active. A channel
	// that stays inactive on a live connection (CI saw one of a 12-node
	// graph's for 4 minutes) gets a new connection, hence a new
	// reestablish, every kickEvery redials.
	waited := make(chan error, 1)
	go func() { waited <- g.Wait() }()
	redial := time.NewTicker(redialEvery)
	defer redial.Stop()
	for redials := 0; ; {
		select {
		case err := <-waited:
			if err != nil && lastDial != nil {
				err = fmt.Errorf("%w (the last dials failed: %v)", err, lastDial)
			}
			if err == nil {
				fmt.Fprintf(log, "setup: peers dialled in %.1f s; channels active: %s; %d redials, %d reconnects\n", dialled.Seconds(), doneSummary(active, "nodes"), redials, redials/kickEvery)
			}
			return err
		case <-redial.C:
			redials++
			mu.Lock()
			still := maps.Clone(short)
			mu.Unlock()
			if redials%kickEvery == 0 {
				n.disconnectPeersOf(gctx, still)
			}
			// Only the pairs of nodes still short: 200 nodes' 300 pairs
			// each tick would be RPCs on a machine still busy restarting.
			lastDial = n.connectPairsOf(gctx, still) // a failed dial shows as channels still inactive
		}
	}
}

// doneSummary says when each of a setup phase's parts (nodes, pairs) was
// done, counted from the phase's start: where a slow phase went (most at
// once, or one straggler).
func doneSummary(at map[string]time.Duration, parts string) string {
	if len(at) == 0 {
		return "no " + parts
	}
	names := slices.SortedFunc(maps.Keys(at), func(a, b string) int { return cmp.Or(cmp.Compare(at[a], at[b]), cmp.Compare(a, b)) })
	half, last := at[names[(len(names)-1)/2]], names[len(names)-1]
	return fmt.Sprintf("half of %d %s by %.1f s, all by %.1f s (last: %s)", len(names), parts, half.Seconds(), at[last].Seconds(), last)
}

// disconnectPeersOf drops the connections of every channel with an end in
// nodes, from the side that dials it again (connectPairs).
func (n *Network) disconnectPeersOf(ctx context.Context, nodes map[string]bool) {
	for _, c := range n.Topology.Channels {
		if nodes[c.From] || nodes[c.To] {
			if d, ok := n.Nodes[c.From].(node.Disconnecter); ok {
				_ = d.Disconnect(ctx, n.PubKeys[c.To]) // not connected: nothing to drop
			}
		}
	}
}

// redialEvery is how often the peers of a restored network's nodes still
// short of active channels are dialled again: a dial that failed (a
// handshake timed out while 200 nodes restarted) is made again within
// 2 s, not 10, and only the short nodes' pairs are dialled, so a tick
// costs a few RPCs. (It did not shorten 200 nodes' channels phase, 31 s
// either way: the cores, not the dials, held it.)
const redialEvery = 2 * time.Second

// kickEvery is how many redials pass before the connections of nodes
// still short of active channels are dropped and made again (30 s).
const kickEvery = 15

// connectPairs connects every pair of nodes with a channel once, from the
// funder of its first channel, before any channel opens: two nodes that
// dial each other at once (channels both ways) race LND's tie-break of
// duplicate connections, which drops one under the open ("peer is not
// online").
func (n *Network) connectPairs(ctx context.Context) error { return n.connectPairsOf(ctx, nil) }

// connectPairsOf is connectPairs for the pairs with an end in only (nil:
// every pair).
func (n *Network) connectPairsOf(ctx context.Context, only map[string]bool) error {
	dials := map[string][]string{} // dialler → peers
	seen := map[[2]string]bool{}
	for _, c := range n.Topology.Channels {
		if only != nil && !only[c.From] && !only[c.To] {
			continue
		}
		k := [2]string{min(c.From, c.To), max(c.From, c.To)}
		if !seen[k] {
			seen[k] = true
			dials[c.From] = append(dials[c.From], c.To)
		}
	}
	// Every dial is tried even when one fails: one timed-out handshake
	// must not leave the other pairs undialled.
	var mu sync.Mutex
	var failed []error
	var wg sync.WaitGroup
	for from, peers := range dials {
		wg.Go(func() {
			for _, to := range peers {
				// A restored node may have reached its peer first.
				if err := n.Nodes[from].Connect(ctx, n.PubKeys[to], n.Endpoints[to].PeerHost); err != nil && !strings.Contains(err.Error(), "already connected") {
					mu.Lock()
					failed = append(failed, fmt.Errorf("%s→%s: %w", from, to, err))
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	switch len(failed) {
	case 0:
		return nil
	case 1:
		return failed[0]
	}
	return fmt.Errorf("%d dials failed, the first: %w", len(failed), failed[0])
}

// connectPairsRetrying is connectPairs tried up to dialTries times,
// dialPause apart, while dials fail: a handshake can time out on a loaded
// machine, and the pair is fine the next time.
func (n *Network) connectPairsRetrying(ctx context.Context) error {
	for try := 1; ; try++ {
		err := n.connectPairs(ctx)
		if err == nil || try == dialTries {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(dialPause):
		}
	}
}

// dialTries bounds connectPairsRetrying; dialPause is its wait between
// tries (a variable for the unit tests).
const dialTries = 3

var dialPause = time.Second

// waitMempool waits until the funding transactions reached btcd, so the
// block we mine includes them all.
func (n *Network) waitMempool(ctx context.Context, txs int) error {
	var have int
	err := wait.Until(ctx, 50*time.Millisecond, func() bool {
		have, _ = n.Chain.MempoolSize(ctx)
		return have >= txs
	})
	if err != nil {
		return fmt.Errorf("waiting for %d funding transactions in the mempool (have %d): %w", txs, have, err)
	}
	return nil
}

// waitRoutes waits until every payer finds a route to each of its payees
// (the graph has synced that far), then pays one warm-up invoice per pair,
// retried until it succeeds: right after a channel turns active, LND fails
// payments for about a second.
func (n *Network) waitRoutes(ctx context.Context, log io.Writer) error {
	start := time.Now() // for the log line; the phase is timed by bringUp
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(routeChecks)
	var mu sync.Mutex
	routed, paid := map[string]time.Duration{}, map[string]time.Duration{}
	seen := map[topology.Pair]bool{}
	for _, p := range n.Topology.Routes() {
		if seen[p] {
			continue
		}
		seen[p] = true
		g.Go(func() error {
			if err := n.Nodes[p.Payer].WaitRoute(gctx, n.PubKeys[p.Payee], 100); err != nil {
				return fmt.Errorf("%s has no route to %s: %w", p.Payer, p.Payee, err)
			}
			pair := p.Payer + "→" + p.Payee
			mu.Lock()
			routed[pair] = time.Since(start)
			mu.Unlock()
			if err := WarmUp(gctx, n.Nodes[p.Payer], n.Nodes[p.Payee]); err != nil {
				return err
			}
			mu.Lock()
			paid[pair] = time.Since(start)
			mu.Unlock()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	fmt.Fprintf(log, "setup: routes known: %s; warm-up paid: %s\n", doneSummary(routed, "pairs"), doneSummary(paid, "pairs"))
	return nil
}

// routeChecks bounds the route queries and warm-up payments in flight: a
// hundred pairs at once would queue on 2 cores anyway.
const routeChecks = 16

// WarmUp pays one 100-sat invoice from payer to payee, retrying until it succeeds.
func WarmUp(ctx context.Context, payer, payee node.Node) error {
	var last string
	var invoiceErr error // AddInvoice failing ends the warm-up at once
	if werr := wait.Until(ctx, 200*time.Millisecond, func() bool {
		inv, err := payee.AddInvoice(ctx, 100, "lnbench warm-up")
		if err != nil {
			invoiceErr = err
			return true
		}
		res, err := payer.Pay(ctx, node.Payment{PaymentRequest: inv.PaymentRequest, Timeout: 30 * time.Second})
		if err == nil && res.Succeeded {
			return true
		}
		if err != nil {
			last = err.Error()
		} else {
			last = res.FailureReason
		}
		return false
	}); werr != nil {
		return fmt.Errorf("warm-up payment %s→%s never succeeded (last: %s): %w", payer.Name(), payee.Name(), last, werr)
	}
	return invoiceErr
}

// Close releases the RPC connections (the backend stops the processes).
func (n *Network) Close() {
	for _, nd := range n.Nodes {
		nd.Close()
	}
	if n.Chain != nil {
		n.Chain.Close()
	}
}

// Names lists node names sorted.
func (n *Network) Names() []string {
	var out []string
	for k := range n.Nodes {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// nodeSpec is what the backend starts for a topology node.
func (o Options) nodeSpec(nd topology.Node) backend.NodeSpec {
	cfg, ok := o.Configs[nd.Spec]
	if !ok {
		cfg = backend.NodeConfig{DBBackend: o.DBBackend, Args: o.NodeArgs}
	}
	return backend.NodeSpec{Name: nd.Name, Implementation: nd.Implementation, Version: nd.Version, Build: nd.Build,
		DBBackend: cfg.DBBackend, ExtraArgs: cfg.Args, Env: cfg.Env}
}

// ChainNetwork is the chain a topology runs on: regtest when a Core
// Lightning node is in it (CLN has no simnet), else simnet.
func ChainNetwork(topo topology.Topology) btcd.Network {
	for _, nd := range topo.Nodes {
		if nd.Implementation == "cln" {
			return btcd.Regtest
		}
	}
	return btcd.Simnet
}
