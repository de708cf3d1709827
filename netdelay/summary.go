package netdelay

import (
	"fmt"
	"os"
	"strconv"
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
	summaryFormat = "netdelay: queue %d: held %d, released %d, bypassed %d"
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
// released (an ACCEPT verdict), clearing included. Bypassed counts the
// packets the kernel queued but could not hand over (the socket full) and
// let through undelayed.
type Summary struct {
	Queue, Held, Released, Bypassed int
}

func (s Summary) String() string {
	return fmt.Sprintf(summaryFormat, s.Queue, s.Held, s.Released, s.Bypassed)
}

// Lost is how many held packets never got their verdict.
func (s Summary) Lost() int { return s.Held - s.Released }

// ParseSummary finds the summary line in a delayer's log.
func ParseSummary(log string) (Summary, bool) {
	for _, l := range strings.Split(log, "\n") {
		var s Summary
		if n, _ := fmt.Sscanf(strings.TrimSpace(l), summaryFormat, &s.Queue, &s.Held, &s.Released, &s.Bypassed); n == 4 {
			return s, true
		}
	}
	return Summary{}, false
}

// queueFile lists the network namespace's NFQUEUE instances: queue,
// portid, total, copy mode, copy range, dropped, user dropped, id sequence.
const queueFile = "/proc/net/netfilter/nfnetlink_queue"

// idSequence is how many packet ids the kernel gave out on queue: every
// packet it tried to hand over, those let through when it could not included.
func idSequence(queue uint16) (int, bool) {
	data, err := os.ReadFile(queueFile)
	if err != nil {
		return 0, false
	}
	return parseIDSequence(string(data), queue)
}

func parseIDSequence(data string, queue uint16) (int, bool) {
	for _, l := range strings.Split(data, "\n") {
		f := strings.Fields(l)
		if len(f) >= 8 && f[0] == strconv.Itoa(int(queue)) {
			n, err := strconv.Atoi(f[7])
			return n, err == nil
		}
	}
	return 0, false
}
