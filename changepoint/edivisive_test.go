package changepoint

import (
	"math/rand/v2"
	"testing"
)

// noisy is n points around level with relative noise sd, seeded.
func noisy(rng *rand.Rand, n int, level, sd float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = level * (1 + sd*rng.NormFloat64())
	}
	return out
}

func TestDetectFindsAPlantedStep(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	xs := append(noisy(rng, 5, 100, 0.02), noisy(rng, 5, 90, 0.02)...)
	res := Detect(xs, Options{})
	if len(res.Points) != 1 || res.Points[0].Index != 5 {
		t.Fatalf("points %+v, want one at 5", res.Points)
	}
	if s := res.Points[0].Shift; s > -0.07 || s < -0.13 {
		t.Errorf("shift %.3f, want about -10%%", s)
	}
}

func TestDetectTwoSteps(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	xs := append(append(noisy(rng, 8, 100, 0.01), noisy(rng, 8, 120, 0.01)...), noisy(rng, 8, 100, 0.01)...)
	res := Detect(xs, Options{})
	if len(res.Points) != 2 || res.Points[0].Index != 8 || res.Points[1].Index != 16 {
		t.Fatalf("points %+v, want 8 and 16", res.Points)
	}
	if s0, s1 := res.Points[0].Shift, res.Points[1].Shift; s0 < 0.17 || s0 > 0.23 || s1 > -0.14 || s1 < -0.2 {
		t.Errorf("shifts %.3f and %.3f, want +20%% and -17%%", s0, s1)
	}
}

// On flat series the false-positive rate must stay near Alpha: over 200
// seeded flat series of 10 points, at most a few change points.
func TestDetectFlatSeriesRarelyFires(t *testing.T) {
	fired := 0
	for seed := uint64(1); seed <= 200; seed++ {
		rng := rand.New(rand.NewPCG(seed, 11))
		if res := Detect(noisy(rng, 10, 100, 0.03), Options{Permutations: 199, Seed: seed}); len(res.Points) > 0 {
			fired++
		}
	}
	// Alpha 0.05 over 200 series: 10 expected; 21 would be p < 0.001.
	if fired > 20 {
		t.Fatalf("%d of 200 flat series had a change point", fired)
	}
}

func TestDetectIgnoresShiftsBelowTheNoiseThreshold(t *testing.T) {
	xs := []float64{100, 100.1, 99.9, 100, 100.1, 101, 101.1, 100.9, 101, 101.1}
	if res := Detect(xs, Options{}); len(res.Points) != 0 {
		t.Fatalf("a 1%% shift became %+v", res.Points)
	}
	if res := Detect(xs, Options{MinShift: 0.005}); len(res.Points) != 1 {
		t.Fatalf("with a 0.5%% threshold: %+v", res.Points)
	}
}

func TestDetectShortSeries(t *testing.T) {
	if res := Detect([]float64{1, 2, 3}, Options{}); len(res.Points) != 0 || res.Tests != 0 {
		t.Fatalf("%+v", res)
	}
}
