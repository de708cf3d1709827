package backend

import "time"

// Overhead is what a backend spends around a network's iterations:
// restoring it from a snapshot, closing it, and the gap between two
// iterations (the waiting network frozen and thawed, the next started).
// Each backend's driver states its own, measured on the 2-core VM
// (docs/measured.md, "Where a default comparison's wall time goes"); only
// the plan's estimate uses them.
type Overhead struct {
	Restore, Close, BetweenIterations time.Duration
}
