// Package netdelay delays packets in user space when the kernel has no
// netem: an iptables rule sends them to an NFQUEUE, and Run gives each its
// ACCEPT verdict after delay ± jitter, in arrival order as netem does
// without reordering.
package netdelay

import (
	"fmt"
	"time"
)

// Schedule computes release times. Jitter is uniform in ±Jitter (netem's
// default distribution); a packet never leaves before the one queued ahead
// of it, so jitter delays but does not reorder.
type Schedule struct {
	Delay, Jitter time.Duration
	// Rand returns a float in [0, 1); math/rand's Float64 in Run, fixed in tests.
	Rand func() float64
	last time.Time
}

// Check refuses settings Release cannot honour, naming the flag.
func (s *Schedule) Check() error {
	switch {
	case s.Delay <= 0:
		return fmt.Errorf("--delay %v: want more than 0", s.Delay)
	case s.Jitter < 0:
		return fmt.Errorf("--jitter %v: want 0 or more", s.Jitter)
	}
	return nil
}

// Release is when a packet that arrived at now may leave.
func (s *Schedule) Release(now time.Time) time.Time {
	d := s.Delay
	if s.Jitter > 0 {
		d += time.Duration((2*s.Rand() - 1) * float64(s.Jitter))
	}
	at := now.Add(max(d, 0)) // jitter above the delay: no earlier than now
	if at.Before(s.last) {
		at = s.last
	}
	s.last = at
	return at
}

// Undelayed is when a packet that arrived at now may leave once the delay
// was lifted: at once, but never before one queued ahead of it, so packets
// still held are not overtaken (reordering would look like loss to TCP).
func (s *Schedule) Undelayed(now time.Time) time.Time {
	at := now
	if at.Before(s.last) {
		at = s.last
	}
	s.last = at
	return at
}
