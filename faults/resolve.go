package faults

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Chain is the chain's actor name in every backend.
const Chain = "btcd"

// Actors are who a fault can name in one network: its nodes (and the
// chain), and which of them play each role.
type Actors struct {
	Nodes          []string
	Payers         []string
	Payees         []string
	Intermediaries []string
}

// Target is a resolved fault target: an actor, and a peer when the fault
// impairs one link only.
type Target struct {
	Actor, Peer string
}

func (t Target) String() string {
	if t.Peer != "" {
		return t.Actor + "~" + t.Peer
	}
	return t.Actor
}

// Resolve names the actors a fault acts on in this network: roles become
// the one node playing them.
func (a Actors) Resolve(s Spec) (Target, error) {
	if x, y, link := s.Link(); link {
		ax, err := a.actor(x, s)
		if err != nil {
			return Target{}, err
		}
		ay, err := a.actor(y, s)
		if err != nil {
			return Target{}, err
		}
		if ax == ay {
			return Target{}, fmt.Errorf("fault %q: link %s names %s twice; give two different actors", s, s.Target, ax)
		}
		return Target{Actor: ax, Peer: ay}, nil
	}
	ax, err := a.actor(s.Target, s)
	return Target{Actor: ax}, err
}

func (a Actors) actor(name string, s Spec) (string, error) {
	if name == Chain || slices.Contains(a.Nodes, name) {
		return name, nil
	}
	var players []string
	switch name {
	case "payer":
		players = a.Payers
	case "payee":
		players = a.Payees
	case "intermediary":
		players = a.Intermediaries
	default:
		valid := append(append([]string{}, a.Nodes...), Chain)
		sort.Strings(valid)
		return "", fmt.Errorf("fault %q: no actor %q; name one of %s, or a role (%s)", s, name, strings.Join(valid, ", "), strings.Join(Roles, ", "))
	}
	switch len(players) {
	case 1:
		return players[0], nil
	case 0:
		return "", fmt.Errorf("fault %q: this topology has no %s; name an actor (%s)", s, name, strings.Join(a.Nodes, ", "))
	}
	return "", fmt.Errorf("fault %q: %s is %s in this topology; name one of them", s, name, strings.Join(players, ", "))
}

// Bounds are what one case measures, to refuse a trigger it never reaches.
type Bounds struct {
	Iterations int // measured iterations (0: bounded by time, unknown)
	Payments   int // measured payments of the case (0: unknown)
}

// CheckReached refuses a trigger the case cannot reach.
func (b Bounds) CheckReached(s Spec) error {
	switch {
	case s.Trigger == AtIteration && b.Iterations > 0 && s.Iteration >= b.Iterations:
		return fmt.Errorf("fault %q: measured iterations are numbered 0 to %d; use a lower iteration or raise job.IterationCount", s, b.Iterations-1)
	case s.Trigger == AfterPayments && b.Payments > 0 && s.Payments >= b.Payments:
		return fmt.Errorf("fault %q: a case measures %d payments; trigger below that or raise TotalPayments/IterationCount", s, b.Payments)
	}
	return nil
}
