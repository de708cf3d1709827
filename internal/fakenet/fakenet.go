// Package fakenet is an in-memory Lightning network for unit tests: a
// backend, a chain and a node driver over one shared state per network, so
// setup and load logic run in milliseconds without real nodes. Every call
// is recorded as an event, in order, for tests to assert on.
package fakenet

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/node"
)

// Hooks change behaviour; nil fields keep the default (everything succeeds
// at once). Set them before the fleet is used.
type Hooks struct {
	// WaitReady runs when a node is asked whether it is ready.
	WaitReady func(ctx context.Context, nodeName string) error
	// WaitActiveChannels runs before the active-channel count is checked.
	WaitActiveChannels func(ctx context.Context, nodeName string) error
	// Connect runs before a node dials a peer; its error is the dial's.
	Connect func(ctx context.Context, from, to string) error
	// Pay decides a payment's outcome.
	Pay func(ctx context.Context, payer string, amountSat int64) (node.PaymentResult, error)
	// Teardown is what a network's Teardown returns (nil: it succeeds).
	Teardown func(ctx context.Context) error
}

// Fleet holds every fake network of a test and dials their nodes.
type Fleet struct {
	Hooks Hooks

	mu       sync.Mutex
	networks []*Backend
}

// NewBackend makes the backend of one fresh network.
func (f *Fleet) NewBackend(runID string) *Backend {
	f.mu.Lock()
	defer f.mu.Unlock()
	b := &Backend{fleet: f, id: len(f.networks), runID: runID, nodes: map[string]*Node{},
		pending: map[string]int64{}, confirmed: map[string]int64{}}
	f.networks = append(f.networks, b)
	return b
}

// Backends lists the networks made so far, in order.
func (f *Fleet) Backends() []*Backend {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*Backend(nil), f.networks...)
}

// Drivers is a registry with the fake driver under the given implementation names.
func (f *Fleet) Drivers(implementations ...string) node.Drivers {
	d := node.Drivers{}
	for _, impl := range implementations {
		d[impl] = node.Driver{Dial: f.dial, Flags: func(db string) []string { return []string{"--fake", "--db=" + db} },
			Profile: func(profile, db, version string) (node.Profile, error) {
				return node.Profile{DBBackend: db, Flags: []string{"--profile=" + profile}}, nil
			}}
	}
	return d
}

func (f *Fleet) dial(name string, ep node.Endpoint) (node.Node, error) {
	id, nodeName, ok := strings.Cut(strings.TrimPrefix(ep.RPCHost, "fakenet:"), "/")
	i, err := strconv.Atoi(id)
	f.mu.Lock()
	defer f.mu.Unlock()
	if !ok || err != nil || i < 0 || i >= len(f.networks) || nodeName != name {
		return nil, fmt.Errorf("fakenet: no node %s at %q", name, ep.RPCHost)
	}
	b := f.networks[i]
	b.mu.Lock()
	defer b.mu.Unlock()
	n, ok := b.nodes[name]
	if !ok {
		return nil, fmt.Errorf("fakenet: node %s was not started", name)
	}
	b.logf("dial %s", name)
	return n, nil
}

// StartChain starts the chain of the network behind be and returns it; it
// has network.ChainStarter's shape.
func StartChain(ctx context.Context, be backend.Backend) (*Chain, backend.ChainEndpoint, error) {
	b, ok := be.(*Backend)
	if !ok {
		return nil, backend.ChainEndpoint{}, fmt.Errorf("fakenet: backend %s is not a fake", be.Name())
	}
	ep, err := b.StartChain(ctx, backend.ChainSpec{MiningAddr: "faucet", RPCUser: "lnbench", RPCPass: "secret"})
	if err != nil {
		return nil, ep, err
	}
	return &Chain{b: b}, ep, nil
}

// Backend is one fake network: it implements backend.Backend and
// backend.Diagnoser.
type Backend struct {
	fleet *Fleet
	id    int
	runID string

	mu        sync.Mutex
	events    []string
	nodes     map[string]*Node
	started   []backend.NodeSpec
	height    int64
	mempool   int
	pending   map[string]int64 // address → sat until the next block
	confirmed map[string]int64
	dead      []backend.Death
	tornDown  int
}

func (b *Backend) logf(format string, a ...any) {
	b.events = append(b.events, fmt.Sprintf(format, a...))
}

// Events lists every recorded call in order.
func (b *Backend) Events() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.events...)
}

// Kill makes Dead report the service from now on.
func (b *Backend) Kill(service string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.dead = append(b.dead, backend.Death{Actor: service, Reason: "exited", ExitCode: -1, Signal: "SIGKILL", LogTail: []string{"fake crash"}})
}

// TornDown counts Teardown calls.
func (b *Backend) TornDown() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.tornDown
}

// Started lists the node specs the network was asked to start, in order.
func (b *Backend) Started() []backend.NodeSpec {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]backend.NodeSpec(nil), b.started...)
}

func (b *Backend) Name() string  { return "fake" }
func (b *Backend) RunID() string { return b.runID }

func (b *Backend) StartChain(ctx context.Context, spec backend.ChainSpec) (backend.ChainEndpoint, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.logf("start chain")
	return backend.ChainEndpoint{RPCHost: "127.0.0.1:18556", User: spec.RPCUser, Pass: spec.RPCPass,
		Args: []string{"--simnet", "--rpcpass=" + spec.RPCPass}}, nil
}

func (b *Backend) StartNode(ctx context.Context, spec backend.NodeSpec) (backend.NodeEndpoint, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.nodes[spec.Name]; ok {
		return backend.NodeEndpoint{}, fmt.Errorf("fakenet: node %s started twice", spec.Name)
	}
	b.nodes[spec.Name] = &Node{b: b, name: spec.Name}
	b.started = append(b.started, spec)
	b.logf("start node %s", spec.Name)
	return backend.NodeEndpoint{Name: spec.Name, RPCHost: fmt.Sprintf("fakenet:%d/%s", b.id, spec.Name),
		PeerHost: spec.Name + ":9735", Args: append([]string{"--alias=" + spec.Name}, spec.ExtraArgs...)}, nil
}

func (b *Backend) StopNode(ctx context.Context, name string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.logf("stop node %s", name)
	return nil
}

// CollectLogs writes one fake.log per started node.
func (b *Backend) CollectLogs(ctx context.Context, dir string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	for name := range b.nodes {
		if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name, "fake.log"), []byte("fake node "+name+"\n"), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func (b *Backend) Teardown(ctx context.Context) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.tornDown++
	b.logf("teardown")
	if h := b.fleet.Hooks.Teardown; h != nil {
		return h(ctx)
	}
	return nil
}

func (b *Backend) Dead(ctx context.Context) []backend.Death {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]backend.Death(nil), b.dead...)
}

// Chain is the fake chain of one network; it has network.Chain's methods.
type Chain struct{ b *Backend }

func (c *Chain) Mature(ctx context.Context, coins int) error {
	c.b.mu.Lock()
	defer c.b.mu.Unlock()
	c.b.height += int64(300 + coins)
	c.b.logf("mature %d", coins)
	return nil
}

// Fund records each payment as one unconfirmed transaction.
func (c *Chain) Fund(ctx context.Context, amounts map[string]int64) error {
	c.b.mu.Lock()
	defer c.b.mu.Unlock()
	addrs := make([]string, 0, len(amounts))
	for a := range amounts {
		addrs = append(addrs, a)
	}
	sort.Strings(addrs)
	for _, a := range addrs {
		c.b.pending[a] += amounts[a]
		c.b.mempool++
		c.b.logf("fund %s %d", a, amounts[a])
	}
	return nil
}

// Mine confirms what waits: funds reach wallets, pending channels turn active.
func (c *Chain) Mine(ctx context.Context, blocks uint32) error {
	c.b.mu.Lock()
	defer c.b.mu.Unlock()
	c.b.height += int64(blocks)
	c.b.mempool = 0
	for a, sat := range c.b.pending {
		c.b.confirmed[a] += sat
	}
	clear(c.b.pending)
	for _, n := range c.b.nodes {
		n.active += n.pendingChans
		n.pendingChans = 0
	}
	c.b.logf("mine %d", blocks)
	return nil
}

func (c *Chain) Height(ctx context.Context) (int64, error) {
	c.b.mu.Lock()
	defer c.b.mu.Unlock()
	return c.b.height, nil
}

func (c *Chain) MempoolSize(ctx context.Context) (int, error) {
	c.b.mu.Lock()
	defer c.b.mu.Unlock()
	return c.b.mempool, nil
}

// WriteBlocks writes the height: the fake's chain is its height.
func (c *Chain) WriteBlocks(ctx context.Context, w io.Writer) error {
	h, _ := c.Height(ctx)
	_, err := fmt.Fprintf(w, "%d\n", h)
	return err
}

// ReplayBlocks sets the height WriteBlocks wrote.
func (c *Chain) ReplayBlocks(ctx context.Context, r io.Reader) error {
	var h int64
	if _, err := fmt.Fscan(r, &h); err != nil {
		return err
	}
	c.b.mu.Lock()
	defer c.b.mu.Unlock()
	c.b.height = h
	return nil
}

func (c *Chain) Close() {}

// Node is a fake node.Node; payments succeed at once unless Hooks.Pay says otherwise.
type Node struct {
	b    *Backend
	name string

	// guarded by b.mu
	pendingChans, active int
	invoices             int
}

// PubKey is the fake identity key of a node name.
func PubKey(name string) string { return "pk-" + name }

func (n *Node) hooks() Hooks { return n.b.fleet.Hooks }

func (n *Node) Name() string { return n.name }

func (n *Node) WaitReady(ctx context.Context) error {
	if h := n.hooks().WaitReady; h != nil {
		if err := h(ctx, n.name); err != nil {
			return err
		}
	}
	n.b.mu.Lock()
	defer n.b.mu.Unlock()
	n.b.logf("ready %s", n.name)
	return nil
}

func (n *Node) Info(ctx context.Context) (node.Info, error) {
	n.b.mu.Lock()
	defer n.b.mu.Unlock()
	return node.Info{PubKey: PubKey(n.name), Alias: n.name, Version: "fake", BlockHeight: uint32(n.b.height),
		SyncedToChain: true, SyncedToGraph: true, ActiveChannels: n.active, PendingChans: n.pendingChans}, nil
}

func (n *Node) NewAddress(ctx context.Context) (string, error) { return "addr-" + n.name, nil }

func (n *Node) ConfirmedBalance(ctx context.Context) (int64, error) {
	n.b.mu.Lock()
	defer n.b.mu.Unlock()
	return n.b.confirmed["addr-"+n.name], nil
}

func (n *Node) peer(pubKey string) (*Node, error) {
	p, ok := n.b.nodes[strings.TrimPrefix(pubKey, "pk-")]
	if !ok || !strings.HasPrefix(pubKey, "pk-") {
		return nil, fmt.Errorf("%s: unknown peer %q", n.name, pubKey)
	}
	return p, nil
}

func (n *Node) Connect(ctx context.Context, pubKey, hostPort string) error {
	n.b.mu.Lock()
	defer n.b.mu.Unlock()
	p, err := n.peer(pubKey)
	if err != nil {
		return err
	}
	if hostPort != p.name+":9735" {
		return fmt.Errorf("%s: connect %s at %s, it listens on %s:9735", n.name, p.name, hostPort, p.name)
	}
	if h := n.hooks().Connect; h != nil {
		// The hook runs unlocked: one that blocks holds this dial only.
		n.b.mu.Unlock()
		err := h(ctx, n.name, p.name)
		n.b.mu.Lock()
		if err != nil {
			n.b.logf("connect %s %s failed", n.name, p.name)
			return err
		}
	}
	n.b.logf("connect %s %s", n.name, p.name)
	return nil
}

// OpenChannels records one batch as one funding transaction.
func (n *Node) OpenChannels(ctx context.Context, reqs []node.ChannelRequest) error {
	n.b.mu.Lock()
	defer n.b.mu.Unlock()
	var parts []string
	for _, r := range reqs {
		p, err := n.peer(r.PeerPubKey)
		if err != nil {
			return err
		}
		p.pendingChans++
		n.pendingChans++
		parts = append(parts, fmt.Sprintf("%s:%d", p.name, r.CapacitySat))
	}
	n.b.mempool++
	n.b.logf("open %s %s", n.name, strings.Join(parts, ","))
	return nil
}

// WaitActiveChannels fails at once when fewer are active: the fake chain
// activates channels only when a block is mined, so waiting would hide a
// setup that forgot to mine.
func (n *Node) WaitActiveChannels(ctx context.Context, want int) error {
	if h := n.hooks().WaitActiveChannels; h != nil {
		if err := h(ctx, n.name); err != nil {
			return err
		}
	}
	n.b.mu.Lock()
	defer n.b.mu.Unlock()
	if n.active < want {
		return fmt.Errorf("%s: %d active channels, want %d", n.name, n.active, want)
	}
	n.b.logf("active %s %d", n.name, want)
	return nil
}

func (n *Node) WaitRoute(ctx context.Context, dest string, amtSat int64) error {
	n.b.mu.Lock()
	defer n.b.mu.Unlock()
	if _, err := n.peer(dest); err != nil {
		return err
	}
	n.b.logf("route %s %s", n.name, strings.TrimPrefix(dest, "pk-"))
	return nil
}

// AddInvoice encodes payee and amount in the request, so Pay can read them.
func (n *Node) AddInvoice(ctx context.Context, amtSat int64, memo string) (node.Invoice, error) {
	n.b.mu.Lock()
	defer n.b.mu.Unlock()
	n.invoices++
	return node.Invoice{PaymentRequest: fmt.Sprintf("fakeinv:%s:%d:%d", n.name, amtSat, n.invoices)}, nil
}

func (n *Node) Pay(ctx context.Context, p node.Payment) (node.PaymentResult, error) {
	amt := p.AmountSat
	if p.PaymentRequest != "" {
		parts := strings.Split(p.PaymentRequest, ":")
		if len(parts) != 4 || parts[0] != "fakeinv" {
			return node.PaymentResult{}, fmt.Errorf("%s: not a fake invoice: %q", n.name, p.PaymentRequest)
		}
		v, err := strconv.ParseInt(parts[2], 10, 64)
		if err != nil {
			return node.PaymentResult{}, err
		}
		amt = v
	}
	res := node.PaymentResult{Succeeded: true, Hops: 1}
	if h := n.hooks().Pay; h != nil {
		var err error
		if res, err = h(ctx, n.name, amt); err != nil {
			return res, err
		}
	}
	return res, nil
}

// ForwardedCount is 0: fake payments take no route.
func (n *Node) ForwardedCount(ctx context.Context) (int, error) { return 0, nil }

func (n *Node) Close() error { return nil }

var (
	_ backend.Backend   = (*Backend)(nil)
	_ backend.Diagnoser = (*Backend)(nil)
	_ node.Node         = (*Node)(nil)
)
