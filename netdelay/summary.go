package netdelay

import (
	"fmt"
	"strings"
	"time"
)

// The lines a delayer writes, which the compose backend reads from its
// log: bound once it holds its queue; lifted once, told to stop, it has
// released every packet held under the delay (later ones pass at once, in
// order) and may lose its rule; Summary when it exits.
const (
	boundFormat   = "netdelay: queue %d bound, delay %v ± %v"
	liftedFormat  = "netdelay: queue %d lifted at %d"
	summaryFormat = "netdelay: queue %d: held %d, released %d"
)

// Lifted finds the lifted line in a delayer's log: when the delay ended
// for new packets.
func Lifted(log string) (time.Time, bool) {
	for _, l := range strings.Split(log, "\n") {
		var q int
		var ns int64
		if n, _ := fmt.Sscanf(strings.TrimSpace(l), liftedFormat, &q, &ns); n == 2 {
			return time.Unix(0, ns), true
		}
	}
	return time.Time{}, false
}

// IsBound tells whether a log line says the delayer holds its queue.
func IsBound(line string) bool {
	return strings.HasPrefix(line, "netdelay: queue ") && strings.Contains(line, " bound, ")
}

// Summary counts one delayer's packets: every packet held must be
// released (an ACCEPT verdict), clearing included.
type Summary struct {
	Queue, Held, Released int
}

func (s Summary) String() string { return fmt.Sprintf(summaryFormat, s.Queue, s.Held, s.Released) }

// Lost is how many held packets never got their verdict.
func (s Summary) Lost() int { return s.Held - s.Released }

// ParseSummary finds the summary line in a delayer's log.
func ParseSummary(log string) (Summary, bool) {
	for _, l := range strings.Split(log, "\n") {
		var s Summary
		if n, _ := fmt.Sscanf(strings.TrimSpace(l), summaryFormat, &s.Queue, &s.Held, &s.Released); n == 3 {
			return s, true
		}
	}
	return Summary{}, false
}
