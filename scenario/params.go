package scenario

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/lnbench/lnbench/topology"
)

// ParamSpec describes a known param: its kind, valid range and default.
type ParamSpec struct {
	Name     string
	Min      int      // for integer params
	Choices  []string // for string params
	Topology bool     // changes the network, so cases differing here never share one
	// Network changes where the network runs but not its shape: cases
	// differing here never share one either, and any topology takes it.
	Network bool
	// Default is the value of a case that does not set the param; "" means
	// unset (Rate: closed loop; topology params: the builder decides).
	Default string
	Doc     string
	// Text, when set, makes the param a free-form string checked by it.
	Text func(string) error
	// For the reference (ParamRows): Unset is what an unset param means
	// when Default is "", Values the valid values of a Text param, and See
	// a markdown link to where the param is explained.
	Unset, Values, See string
}

// Payment modes: how the payee's side of a payment is made.
const (
	ModeInvoice       = "invoice"        // payee creates the invoice inside the measured operation
	ModePregenerated  = "pregenerated"   // invoices created before timing starts
	ModeKeysend       = "keysend"        // spontaneous payment, no invoice
	ModeCreateInvoice = "create-invoice" // the payee creates an invoice, nothing is paid (CLN's benchmark.py test_invoice)
	ModeXpay          = "xpay"           // invoice mode paid with CLN's xpay (CLN payers)
	ModeSendpay       = "sendpay"        // CLN's benchmark: pregenerated, sendpay along a fixed route (CLN payers)
)

// CLNPaymentModes are the modes only Core Lightning payers have.
var CLNPaymentModes = []string{ModeXpay, ModeSendpay}

// PaymentModes are the valid values of Mode; the load generator implements each.
var PaymentModes = []string{ModeInvoice, ModePregenerated, ModeKeysend, ModeCreateInvoice, ModeXpay, ModeSendpay}

// Known params. Unknown names are errors: a typo must not silently run the default.
var Known = []ParamSpec{
	{Name: "Concurrency", Min: 1, Default: "1", Doc: "workers paying at once (closed loop)"},
	{Name: "TotalPayments", Min: 1, Default: "100", Doc: "payments per iteration"},
	{Name: "CarolsCount", Min: 0, Topology: true, Doc: "intermediate hops (AlicePaysBobViaCarol); an LND payer pays through 9 hops at most (CarolsCount 8) unless `--routerrpc.minrtprob` is lowered in `node.flags`: a longer line is refused before it starts"},
	{Name: "AliceCount", Min: 1, Topology: true, Doc: "payers (AlicesPayBob)"},
	{Name: "Mode", Choices: PaymentModes, Default: ModeInvoice, Doc: "payment mode; `xpay` and `sendpay` need CLN payers; `create-invoice` pays nothing", See: "[Load shapes](#load-shapes-and-payment-modes)"},
	{Name: "AmountSat", Min: 1, Default: "100", Doc: "satoshis per payment"},
	{Name: "Rate", Min: 1, Unset: "unset (closed loop)", Doc: "open loop: payments started per second on schedule (Concurrency is then unused)"},
	{Name: "RatePerPair", Min: 1, Unset: "unset", Doc: "open loop: payments started per second for each payer/payee pair (total = RatePerPair × pairs); excludes Rate"},
	{Name: "Graph", Topology: true, Text: checkGraph, Values: "`" + strings.Join(topology.Shapes, "`, `") + "` or a `.json` file", Doc: "generated graph, or an lncli describegraph .json file (replaces topology)", See: "[Generated graphs](#generated-graphs)"},
	{Name: "NodeCount", Min: 2, Topology: true, Unset: "10", Doc: "nodes of a generated graph"},
	{Name: "Seed", Min: 0, Topology: true, Unset: "1", Doc: "seed of the generated graph and of random pairs"},
	{Name: "Degree", Min: 1, Topology: true, Unset: "3", Doc: "random: mean degree; scalefree: edges per new node"},
	{Name: "Pairs", Min: 1, Topology: true, Unset: "min(NodeCount, 20)", Doc: "random payer/payee pairs at least two hops apart"},
	{Name: "PushPercent", Min: 0, Topology: true, Unset: "50", Doc: "percent of each generated channel pushed to the far side"},
	{Name: "Capacity", Topology: true, Text: checkCapacity, Unset: "`fixed:10000000`", Values: "`fixed:SAT`, `uniform:MIN:MAX`, `lognormal:MEDIAN:SIGMA`", Doc: "generated channel sizes"},
	{Name: "ResourceSampling", Choices: []string{"on", "off"}, Default: "on", Doc: "per-actor resource samples (resources.jsonl) and sync counting; off measures their cost", See: "[resources.md](resources.md)"},
	{Name: "Storage", Choices: Storages, Default: StorageDisk, Network: true, Doc: "where node data dirs live: disk or tmpfs (RAM)", See: "[resources.md](resources.md)"},
}

func checkGraph(v string) error {
	if !topology.IsGenerated(v) {
		return fmt.Errorf("param Graph=%q: use one of %s, or an lncli describegraph .json file", v, strings.Join(topology.Shapes, ", "))
	}
	return nil
}

func checkCapacity(v string) error {
	_, err := topology.ParseDistribution(v)
	return err
}

func spec(name string) (ParamSpec, bool) {
	for _, s := range Known {
		if s.Name == name {
			return s, true
		}
	}
	return ParamSpec{}, false
}

func knownNames() string {
	var n []string
	for _, s := range Known {
		n = append(n, s.Name)
	}
	return strings.Join(n, ", ")
}

// Param is one param with its list of values, in file order.
type Param struct {
	Name   string
	Values []string
}

// ParseOverride parses "Name=v1,v2" from the command line.
func ParseOverride(s string) (Param, error) {
	name, vals, ok := strings.Cut(s, "=")
	if !ok || name == "" || vals == "" {
		return Param{}, fmt.Errorf("--param %q: use Name=value[,value…], e.g. --param Concurrency=20,40", s)
	}
	p := Param{Name: strings.TrimSpace(name)}
	for _, v := range strings.Split(vals, ",") {
		p.Values = append(p.Values, strings.TrimSpace(v))
	}
	return p, p.Validate()
}

// Validate checks the name and each value.
func (p Param) Validate() error {
	s, ok := spec(p.Name)
	if !ok && IsJobSetting(p.Name) {
		v := "N"
		if len(p.Values) > 0 {
			v = p.Values[0] // a job setting has one value
		}
		return fmt.Errorf("param %q is a job setting, not a param: use --job %s=%s on the command line, or job: {%s: %s} in the scenario file",
			p.Name, p.Name, v, p.Name, v)
	}
	if !ok {
		return fmt.Errorf("param %q is unknown; known params: %s (job settings such as IterationCount: --job)", p.Name, knownNames())
	}
	if len(p.Values) == 0 {
		return fmt.Errorf("param %s has no values; give at least one", p.Name)
	}
	seen := map[string]bool{}
	for _, v := range p.Values {
		if seen[v] {
			return fmt.Errorf("param %s lists %q twice; list each value once", p.Name, v)
		}
		seen[v] = true
		if s.Text != nil {
			if err := s.Text(v); err != nil {
				return err
			}
			continue
		}
		if s.Choices != nil {
			if !slices.Contains(s.Choices, v) {
				return fmt.Errorf("param %s=%q: use one of %s", p.Name, v, strings.Join(s.Choices, ", "))
			}
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < s.Min {
			kind := "a positive integer"
			if s.Min == 0 {
				kind = "a non-negative integer"
			}
			return fmt.Errorf("param %s=%q: must be %s", p.Name, v, kind)
		}
	}
	return nil
}

// Value is one param's value in a case.
type Value struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Case is one point of the params' Cartesian product.
type Case struct {
	Values []Value `json:"params"`
	// Node is the label of the node spec the case runs (see Scenario.Cases).
	Node string `json:"node,omitempty"`
	// Workload is the case's load read from Values with the defaults of
	// Known, filled when cases are expanded (Cases, NewCase).
	Workload Workload `json:"-"`
}

// Workload is what one case asks of the load generator, typed and with
// every default applied: the one place a case's load params are read.
type Workload struct {
	Concurrency   int    // closed loop: workers paying at once
	TotalPayments int    // payments per invocation of an iteration
	Rate          int    // open loop: payments started per second; 0 = closed loop
	RatePerPair   int    // open loop: payments per second per payer/payee pair
	Mode          string // one of PaymentModes
	AmountSat     int64  // satoshis per payment
}

// OpenLoop tells whether payments start on a schedule (Rate) rather than
// as workers free up (Concurrency).
func (w Workload) OpenLoop() bool { return w.Rate > 0 || w.RatePerPair > 0 }

// PerSecond is the open loop's total rate for a network of pairs routes
// (payments go round the pairs, so each gets RatePerPair).
func (w Workload) PerSecond(pairs int) float64 {
	if w.RatePerPair > 0 {
		return float64(w.RatePerPair * max(pairs, 1))
	}
	return float64(w.Rate)
}

// NewCase makes the case of the given values, its Workload filled.
// Values are expected to be validated (Param.Validate).
func NewCase(values []Value) Case {
	c := Case{Values: values}
	value := func(name string) string {
		if v, ok := c.Get(name); ok {
			return v
		}
		s, _ := spec(name)
		return s.Default
	}
	integer := func(name string) int {
		n, _ := strconv.Atoi(value(name)) // validated; an unset param without default is 0
		return n
	}
	c.Workload = Workload{
		Concurrency:   integer("Concurrency"),
		TotalPayments: integer("TotalPayments"),
		Rate:          integer("Rate"),
		RatePerPair:   integer("RatePerPair"),
		Mode:          value("Mode"),
		AmountSat:     int64(integer("AmountSat")),
	}
	return c
}

// ID names the case as in Go benchmark names: "Concurrency=20/TotalPayments=100".
func (c Case) ID() string {
	var parts []string
	for _, v := range c.Values {
		parts = append(parts, v.Name+"="+v.Value)
	}
	return strings.Join(parts, "/")
}

// Get returns a param's value in this case.
func (c Case) Get(name string) (string, bool) {
	for _, v := range c.Values {
		if v.Name == name {
			return v.Value, true
		}
	}
	return "", false
}

// Ints returns every integer param of the case.
func (c Case) Ints() map[string]int {
	out := map[string]int{}
	for _, v := range c.Values {
		if n, err := strconv.Atoi(v.Value); err == nil {
			out[v.Name] = n
		}
	}
	return out
}

// Texts returns the case's free-form string params (Graph, Capacity).
func (c Case) Texts() map[string]string {
	out := map[string]string{}
	for _, v := range c.Values {
		if s, _ := spec(v.Name); s.Text != nil {
			out[v.Name] = v.Value
		}
	}
	return out
}

// NetworkKey identifies the network a case needs: cases with equal keys can
// share one network when the scenario reuses networks.
func (c Case) NetworkKey() string { return c.networkKey(true) }

// PairKey is NetworkKey without the node spec: the cases of several specs
// with one PairKey run on networks alike but for their nodes' builds.
func (c Case) PairKey() string { return c.networkKey(false) }

func (c Case) networkKey(withNode bool) string {
	var parts []string
	for _, v := range c.Values {
		if s, _ := spec(v.Name); s.Topology || s.Network || (withNode && v.Name == NodeParam) {
			parts = append(parts, v.Name+"="+v.Value)
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, "/")
}

// Cases is the Cartesian product of params, first param varying slowest.
func Cases(params []Param) []Case {
	product := [][]Value{nil}
	for _, p := range params {
		var next [][]Value
		for _, vals := range product {
			for _, v := range p.Values {
				next = append(next, append(append([]Value(nil), vals...), Value{Name: p.Name, Value: v}))
			}
		}
		product = next
	}
	out := make([]Case, len(product))
	for i, vals := range product {
		out[i] = NewCase(vals)
	}
	return out
}
