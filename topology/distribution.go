package topology

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// LND's channel size limits without wumbo channels.
const (
	MinCapacitySat = 20_000
	MaxCapacitySat = 16_777_215
)

// Distribution draws channel capacities: fixed:SAT, uniform:MIN:MAX or
// lognormal:MEDIAN:SIGMA, every draw clamped into LND's limits.
type Distribution struct {
	Kind   string  // fixed | uniform | lognormal
	A, B   float64 // fixed: A; uniform: [A, B]; lognormal: median A, sigma B
	source string
}

// DefaultDistribution is every channel at DefaultCapacitySat.
var DefaultDistribution = Distribution{Kind: "fixed", A: DefaultCapacitySat, source: fmt.Sprintf("fixed:%d", DefaultCapacitySat)}

// ParseDistribution reads the Capacity param's form.
func ParseDistribution(s string) (Distribution, error) {
	usage := fmt.Errorf("param Capacity=%q: use fixed:SAT, uniform:MIN:MAX or lognormal:MEDIAN:SIGMA (sat in %d..%d), e.g. uniform:1000000:5000000", s, MinCapacitySat, MaxCapacitySat)
	parts := strings.Split(s, ":")
	nums := make([]float64, 0, 2)
	for _, p := range parts[1:] {
		v, err := strconv.ParseFloat(p, 64)
		if err != nil || v <= 0 {
			return Distribution{}, usage
		}
		nums = append(nums, v)
	}
	d := Distribution{Kind: parts[0], source: s}
	inRange := func(v float64) bool { return v >= MinCapacitySat && v <= MaxCapacitySat }
	switch {
	case d.Kind == "fixed" && len(nums) == 1 && inRange(nums[0]):
		d.A = nums[0]
	case d.Kind == "uniform" && len(nums) == 2 && inRange(nums[0]) && inRange(nums[1]) && nums[0] <= nums[1]:
		d.A, d.B = nums[0], nums[1]
	case d.Kind == "lognormal" && len(nums) == 2 && inRange(nums[0]) && nums[1] <= 3:
		d.A, d.B = nums[0], nums[1]
	default:
		return Distribution{}, usage
	}
	return d, nil
}

// Draw returns one capacity in satoshis.
func (d Distribution) Draw(rng *rand.Rand) int64 {
	var v float64
	switch d.Kind {
	case "uniform":
		v = d.A + rng.Float64()*(d.B-d.A)
	case "lognormal":
		v = d.A * math.Exp(d.B*rng.NormFloat64())
	default:
		v = d.A
	}
	return ClampCapacity(int64(math.Round(v)))
}

// ClampCapacity keeps a size within LND's channel limits.
func ClampCapacity(sat int64) int64 { return min(max(sat, MinCapacitySat), MaxCapacitySat) }

func (d Distribution) String() string { return d.source }
