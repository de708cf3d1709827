package runner

import (
	"math/rand/v2"
	"slices"

	"github.com/lnbench/lnbench/scenario"
)

// launchRounds is the order of the specs in launch rounds from to to
// (0-based, to excluded): each round runs every spec once, so no spec's
// launches all come first. abba reverses every other round (A B, B A, …):
// a drift linear in time hits both specs alike over each two rounds.
// shuffled draws each pair of rounds' order from seed and reverses it for
// the second, so it stays balanced; a round's order depends only on seed
// and its index, so rounds added later (until known) continue the same
// sequence.
func launchRounds[T any](labels []T, order string, seed uint64, from, to int) [][]T {
	var out [][]T
	for r := from; r < to; r++ {
		round := slices.Clone(labels)
		if order == scenario.OrderShuffled {
			rng := rand.New(rand.NewPCG(seed, uint64(r/2)))
			rng.Shuffle(len(round), func(i, j int) { round[i], round[j] = round[j], round[i] })
		}
		if r%2 == 1 {
			slices.Reverse(round)
		}
		out = append(out, round)
	}
	return out
}

// newSeed picks a shuffle seed when the scenario names none: never 0,
// which means "pick one".
func newSeed() uint64 { return rand.Uint64N(1_000_000_000) + 1 } // short enough to type back

// specLabels are the scenario's spec labels in file order.
func specLabels(s scenario.Scenario) []string {
	var out []string
	for _, sp := range s.Specs() {
		out = append(out, sp.Label)
	}
	return out
}
