package netdelay

import (
	"fmt"
	"strings"
)

// The lines a delayer writes, which the compose backend reads from its
// log: Bound once it holds its queue, Summary when it exits.
const (
	boundFormat   = "netdelay: queue %d bound, delay %v ± %v"
	summaryFormat = "netdelay: queue %d: held %d, released %d"
)

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
