package netdelay

import (
	"testing"
	"time"
)

func TestRelease(t *testing.T) {
	t0 := time.Unix(1000, 0)
	ms := time.Millisecond
	cases := []struct {
		name          string
		delay, jitter time.Duration
		rands         []float64
		arrive        []time.Duration // after t0
		want          []time.Duration // release, after t0
	}{
		{"fixed delay", 50 * ms, 0, nil, []time.Duration{0, 1 * ms, 30 * ms}, []time.Duration{50 * ms, 51 * ms, 80 * ms}},
		{"jitter both ways", 50 * ms, 10 * ms, []float64{0, 0.5, 0.75}, []time.Duration{0, 100 * ms, 200 * ms}, []time.Duration{40 * ms, 150 * ms, 255 * ms}},
		// The second packet drew 40 ms, which would leave it before the first
		// (60 ms): it waits for the first instead.
		{"jitter keeps order", 50 * ms, 10 * ms, []float64{0.999999999, 0, 0.5}, []time.Duration{0, 1 * ms, 2 * ms}, []time.Duration{60 * ms, 60 * ms, 60 * ms}},
		{"jitter above the delay", 5 * ms, 10 * ms, []float64{0}, []time.Duration{0}, []time.Duration{0}},
		{"later packet after a long one", 50 * ms, 10 * ms, []float64{0.999999999, 0, 0}, []time.Duration{0, 5 * ms, 30 * ms}, []time.Duration{60 * ms, 60 * ms, 70 * ms}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			i := 0
			s := Schedule{Delay: c.delay, Jitter: c.jitter, Rand: func() float64 { r := c.rands[i]; i++; return r }}
			if err := s.Check(); err != nil {
				t.Fatal(err)
			}
			var prev time.Time
			for k, a := range c.arrive {
				got := s.Release(t0.Add(a))
				if d := got.Sub(t0); d.Round(ms) != c.want[k] {
					t.Errorf("packet %d at %v: released at %v, want %v", k, a, d, c.want[k])
				}
				if got.Before(prev) {
					t.Errorf("packet %d released before packet %d", k, k-1)
				}
				if got.Before(t0.Add(a)) {
					t.Errorf("packet %d released before it arrived", k)
				}
				prev = got
			}
		})
	}
}

func TestCheck(t *testing.T) {
	for _, s := range []Schedule{{Delay: 0}, {Delay: 10 * time.Millisecond, Jitter: -1}} {
		if err := s.Check(); err == nil {
			t.Errorf("%+v accepted", s)
		}
	}
}
