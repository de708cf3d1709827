package scenario

import (
	"fmt"
	"time"
)

// Sampling modes.
const (
	SampleOff       = "off"
	SamplePeriodic  = "periodic"  // Window every Every, as the original's sample-loop.sh
	SampleIteration = "iteration" // exactly each measured iteration (warm-up not sampled)
)

// Sampling configures the profiler sidecar.
type Sampling struct {
	Mode    string `yaml:"mode" json:"mode"`
	Every   string `yaml:"every" json:"every"`   // periodic: default 300s
	Window  string `yaml:"window" json:"window"` // periodic: default 60s
	Stagger bool   `yaml:"stagger" json:"stagger"`
	// Slice is the resolution of iteration windows (default 1s).
	Slice string `yaml:"slice" json:"slice"`
}

// DefaultSampling is off; when switched on, the original's 60 s every 300 s.
var DefaultSampling = Sampling{Mode: SampleOff, Every: "300s", Window: "60s", Slice: "1s"}

// Durations parses the sampling durations (validated by Validate).
func (s Sampling) Durations() (every, window, slice time.Duration) {
	every, _ = time.ParseDuration(s.Every)
	window, _ = time.ParseDuration(s.Window)
	slice, _ = time.ParseDuration(s.Slice)
	return
}

// On tells whether any sampling happens.
func (s Sampling) On() bool { return s.Mode != "" && s.Mode != SampleOff }

// Validate names the bad field and the fix.
func (s Sampling) Validate() error {
	switch s.Mode {
	case "", SampleOff, SamplePeriodic, SampleIteration:
	default:
		return fmt.Errorf("sampling.mode %q: use off, periodic or iteration", s.Mode)
	}
	for _, f := range []struct{ name, v string }{{"every", s.Every}, {"window", s.Window}, {"slice", s.Slice}} {
		d, err := time.ParseDuration(f.v)
		if err != nil || d < time.Second {
			return fmt.Errorf("sampling.%s %q: use a duration of at least 1s, e.g. 60s or 5m", f.name, f.v)
		}
	}
	every, window, _ := s.Durations()
	if every < window {
		return fmt.Errorf("sampling.every %s is shorter than sampling.window %s: a window must fit in its period", s.Every, s.Window)
	}
	return nil
}
