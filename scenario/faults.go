package scenario

import (
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/lnbench/lnbench/faults"
	"github.com/lnbench/lnbench/topology"
)

// faultKeys are the keys of a faults: item in mapping form, in the order
// the one-line form writes them.
var faultKeys = []string{"kind", "target", "delay", "jitter", "loss", "rate", "at", "after_payments", "at_iteration", "for"}

// parseFaults reads the faults: list: each item the one-line form
// ("restart bob at 10s") or a mapping of faultKeys, which says the same.
func parseFaults(list yaml.Node) ([]faults.Spec, error) {
	if list.Kind == 0 || list.Tag == "!!null" {
		return nil, nil
	}
	if list.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("faults: write a list, e.g. faults: [\"restart bob at 10s\"]")
	}
	var out []faults.Spec
	for i, item := range list.Content {
		text := item.Value
		switch item.Kind {
		case yaml.ScalarNode:
		case yaml.MappingNode:
			var err error
			if text, err = faultLine(item); err != nil {
				return nil, fmt.Errorf("faults[%d]%v", i, err)
			}
		default:
			return nil, fmt.Errorf("faults[%d]: give the one-line form (%q) or a mapping of %s", i, "restart bob at 10s", strings.Join(faultKeys, ", "))
		}
		s, err := faults.Parse(text)
		if err != nil {
			return nil, fmt.Errorf("faults[%d]: %v", i, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// faultLine turns a mapping into the one-line form, so both forms share
// one parser and one set of rules.
func faultLine(m *yaml.Node) (string, error) {
	v := map[string]string{}
	for j := 0; j+1 < len(m.Content); j += 2 {
		k := m.Content[j].Value
		if !slices.Contains(faultKeys, k) {
			return "", fmt.Errorf(".%s: unknown key; use %s", k, strings.Join(faultKeys, ", "))
		}
		v[k] = m.Content[j+1].Value
	}
	words := []string{v["kind"], v["target"]}
	if v["kind"] == "" || v["target"] == "" {
		return "", fmt.Errorf(": give kind (%s) and target (an actor, a role or a link a~b)", strings.Join(faults.Kinds, ", "))
	}
	if d := v["delay"]; d != "" {
		words = append(words, d)
	}
	if j := v["jitter"]; j != "" {
		words = append(words, "jitter", j)
	}
	if l := v["loss"]; l != "" {
		words = append(words, strings.TrimSuffix(l, "%")+"%")
	}
	if r := v["rate"]; r != "" {
		words = append(words, strings.TrimSuffix(strings.ToLower(r), "kbit")+"kbit")
	}
	if a := v["at"]; a != "" {
		words = append(words, "at", a)
	}
	if n := v["after_payments"]; n != "" {
		words = append(words, "after", n, "payments")
	}
	if k := v["at_iteration"]; k != "" {
		words = append(words, "at", "iteration", k)
	}
	if f := v["for"]; f != "" {
		words = append(words, "for", f)
	}
	return strings.Join(words, " "), nil
}

// FaultActors are who a fault can name on a topology: its nodes and
// which of them pay, are paid, or only forward.
func FaultActors(t topology.Topology) faults.Actors {
	var a faults.Actors
	payers, payees := map[string]bool{}, map[string]bool{}
	for _, r := range t.Routes() {
		payers[r.Payer], payees[r.Payee] = true, true
	}
	for _, n := range t.Nodes {
		a.Nodes = append(a.Nodes, n.Name)
		switch {
		case payers[n.Name]:
			a.Payers = append(a.Payers, n.Name)
		case payees[n.Name]:
			a.Payees = append(a.Payees, n.Name)
		default:
			a.Intermediaries = append(a.Intermediaries, n.Name)
		}
	}
	return a
}

// CheckFaults resolves every fault on every case's topology and refuses a
// trigger a case never reaches, before anything starts.
func (s Scenario) CheckFaults() error {
	if len(s.Faults) == 0 {
		return nil
	}
	for _, c := range s.Cases() {
		topo, err := s.CaseTopology(c)
		if err != nil {
			return err
		}
		actors := FaultActors(topo)
		b := faults.Bounds{}
		if !s.Job.Timed() {
			b.Iterations = s.Job.IterationCount
			b.Payments = s.Job.IterationCount * s.Job.InvocationCount * c.Workload.TotalPayments
		}
		for _, f := range s.Faults {
			if _, err := actors.Resolve(f); err != nil {
				return fmt.Errorf("%v (topology %s)", err, topo.Name)
			}
			if err := b.CheckReached(f); err != nil {
				return err
			}
		}
	}
	return nil
}
