// Package limits holds the limits put on one actor's container and the
// rules Docker applies to them, so a scenario is refused by the same rules
// the compose file must later satisfy, before anything starts.
package limits

import (
	"fmt"
	"strconv"

	"github.com/docker/go-units"
)

// MinMemory is the smallest memory limit Docker accepts.
const MinMemory = 6 * units.MiB

// MinCPUs is the smallest CPU limit Docker accepts.
const MinCPUs = 0.01

// Limits cap one container's resources; zero values mean no limit.
type Limits struct {
	CPUs   float64 // cores, e.g. 1.5
	Memory string  // Docker's notation: bytes with an optional unit, e.g. 512m, 512M, 2g, 1.5GiB
}

// Zero tells whether no limit is set.
func (l Limits) Zero() bool { return l.CPUs == 0 && l.Memory == "" }

// MemoryBytes parses Memory as Docker does; 0 when unset.
func (l Limits) MemoryBytes() (int64, error) {
	if l.Memory == "" {
		return 0, nil
	}
	return units.RAMInBytes(l.Memory)
}

// Validate checks what holds on any host. Errors start with the field
// name ("cpus …", "memory …") so callers can prefix where it was set.
func (l Limits) Validate() error {
	switch {
	case l.CPUs < 0:
		return fmt.Errorf("cpus %g: use a positive number of CPUs, e.g. 1.5 (0 = no limit)", l.CPUs)
	case l.CPUs > 0 && l.CPUs < MinCPUs:
		return fmt.Errorf("cpus %g is below Docker's minimum of %g; use at least %g (0 = no limit)", l.CPUs, MinCPUs, MinCPUs)
	}
	n, err := l.MemoryBytes()
	if err != nil || (l.Memory != "" && n <= 0) {
		return fmt.Errorf("memory %q: use bytes with an optional unit k, m or g, e.g. 512m (empty = no limit)", l.Memory)
	}
	if l.Memory != "" && n < MinMemory {
		return fmt.Errorf("memory %q is below Docker's minimum of 6 MiB; use at least 6m (empty = no limit)", l.Memory)
	}
	return nil
}

// FitHost checks the CPU limit against the cores of the machine the
// containers run on: Docker refuses a container asking for more.
func (l Limits) FitHost(cores int) error {
	if l.CPUs > float64(cores) {
		return fmt.Errorf("cpus %g: this machine has %d cores; use at most %d (0 = no limit)", l.CPUs, cores, cores)
	}
	return nil
}

// ComposeMemory is Memory in the plainest form that docker compose v2 and
// docker-compose v1 both read: a whole number of g, m, k or bytes.
// Call it on validated limits only.
func (l Limits) ComposeMemory() string {
	n, err := l.MemoryBytes()
	if err != nil || n == 0 {
		return ""
	}
	for _, u := range []struct {
		suffix string
		size   int64
	}{{"g", units.GiB}, {"m", units.MiB}, {"k", units.KiB}} {
		if n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}
