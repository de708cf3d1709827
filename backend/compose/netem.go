package compose

import (
	"fmt"
	"math"
	"net/netip"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/internal/lines"
)

// netDev is the interface of a container on its one compose network.
const netDev = "eth0"

// unlimited is the rate of a class that must not shape (HTB always does);
// tc's default burst at that rate rounds to 0 bytes, so it is given.
const unlimited = "rate 10gbit burst 1mb cburst 1mb"

// link is an impairment of an actor's traffic to one peer, selected by the
// peer's address on the compose network.
type link struct {
	Peer string // service name, for messages and a stable order
	IP   string
	Imp  backend.Impairment
}

// checkImpairment refuses settings tc would reject or misread, naming the field.
func checkImpairment(imp backend.Impairment) error {
	switch {
	case imp.Delay < 0:
		return fmt.Errorf("impairment delay %v: want 0 or more", imp.Delay)
	case imp.Jitter < 0:
		return fmt.Errorf("impairment jitter %v: want 0 or more", imp.Jitter)
	case imp.Jitter > 0 && imp.Delay == 0:
		return fmt.Errorf("impairment jitter %v without a delay: jitter varies a delay, set one too", imp.Jitter)
	case imp.LossPercent < 0 || imp.LossPercent > 100 || math.IsNaN(imp.LossPercent):
		return fmt.Errorf("impairment loss %v%%: want 0 to 100", imp.LossPercent)
	case imp.RateKbit < 0:
		return fmt.Errorf("impairment rate %d kbit: want 0 (no limit) or more", imp.RateKbit)
	case imp == backend.Impairment{}:
		return fmt.Errorf("impairment sets nothing: give a delay, a loss or a rate")
	}
	return nil
}

// netemArgs are the netem options of an impairment (nil when it needs no
// netem: a rate limit alone is the HTB class's rate; loss is a BPF filter).
func netemArgs(imp backend.Impairment) []string {
	var a []string
	if imp.Delay > 0 {
		a = append(a, "delay", tcTime(imp.Delay))
		if imp.Jitter > 0 {
			a = append(a, tcTime(imp.Jitter))
		}
	}
	return a
}

// tcTime writes a duration as tc reads it: whole milliseconds, else microseconds.
func tcTime(d time.Duration) string {
	if d%time.Millisecond == 0 {
		return fmt.Sprintf("%dms", d/time.Millisecond)
	}
	return fmt.Sprintf("%dus", (d+time.Microsecond/2)/time.Microsecond)
}

func classRate(imp backend.Impairment) string {
	if imp.RateKbit > 0 {
		return fmt.Sprintf("rate %dkbit", imp.RateKbit)
	}
	return unlimited
}

// exemptClass is the HTB class of the exempt traffic (the harness's):
// never shaped.
const exemptClass = 0xfff

// tcBatch renders an actor's impairments as `tc -batch` lines replacing
// its qdiscs. Egress: an HTB root whose default class 1:1 carries the
// whole-interface impairment (or none), and one class per impaired peer,
// chosen by a u32 filter on the peer's IP, so other traffic is untouched;
// exempt addresses get a class of their own. A class's rate is the rate
// limit; netem below it delays (when delays are netem's, netemDelay).
// Loss is lossFilters' BPF filters on the root and on the ingress qdisc.
// HTB rather than prio: some kernels (this project's CI VM among them)
// have HTB but not prio, and HTB also limits rates without netem. No
// lines means no impairment: the caller only deletes the qdiscs.
func tcBatch(whole backend.Impairment, links []link, exempt []netip.Addr, netemDelay bool) []string {
	shaped := func(imp backend.Impairment) backend.Impairment {
		out := backend.Impairment{RateKbit: imp.RateKbit}
		if netemDelay {
			out.Delay, out.Jitter = imp.Delay, imp.Jitter
		}
		return out
	}
	links = sortedLinks(links)
	var classed []link
	for _, l := range links {
		if sl := shaped(l.Imp); sl != (backend.Impairment{}) {
			classed = append(classed, link{Peer: l.Peer, IP: l.IP, Imp: sl})
		}
	}
	egress, ingress := lossFilters(whole.LossPercent, links, exempt)
	w := shaped(whole)
	if w == (backend.Impairment{}) && len(classed) == 0 && len(egress) == 0 {
		return ingress
	}
	lines := []string{fmt.Sprintf("qdisc add dev %s root handle 1: htb default 1", netDev)}
	class := func(minor int, imp backend.Impairment) {
		lines = append(lines, fmt.Sprintf("class add dev %s parent 1: classid 1:%x htb %s quantum 1514", netDev, minor, classRate(imp)))
		if a := netemArgs(imp); a != nil {
			lines = append(lines, fmt.Sprintf("qdisc add dev %s parent 1:%x handle %x: netem %s", netDev, minor, minor+0x10, strings.Join(a, " ")))
		}
	}
	filter := func(ip string, minor int) {
		lines = append(lines, fmt.Sprintf("filter add dev %s parent 1: protocol ip prio 2 u32 match ip dst %s/32 flowid 1:%x", netDev, ip, minor))
	}
	class(1, w)
	if w != (backend.Impairment{}) && len(exempt) > 0 {
		class(exemptClass, backend.Impairment{})
		for _, a := range exempt {
			filter(a.String(), exemptClass)
		}
	}
	for i, l := range classed {
		class(i+2, l.Imp)
		filter(l.IP, i+2)
	}
	return append(append(lines, egress...), ingress...)
}

// sortedLinks is links in peer name order: stable class and queue numbers.
func sortedLinks(links []link) []link {
	links = append([]link(nil), links...)
	sort.Slice(links, func(i, j int) bool { return links[i].Peer < links[j].Peer })
	return links
}

// tcScript runs in the helper: it removes the actor's qdiscs (none is
// fine), then applies the batch from stdin, stopping at the first failing
// line.
const tcScript = "tc qdisc del dev " + netDev + " root 2>/dev/null; tc qdisc del dev " + netDev + " ingress 2>/dev/null; tc -batch -"

var failedLine = regexp.MustCompile(`Command failed -:(\d+)`)

// explainTC turns tc's complaint about a batch into one line saying what
// to do: an unknown qdisc kind means the kernel lacks its module.
func explainTC(out string, batch []string) string {
	if !strings.Contains(out, "Specified qdisc kind is unknown") {
		return lines.Last(strings.TrimSpace(out), 3)
	}
	kind := "netem"
	if m := failedLine.FindStringSubmatch(out); m != nil {
		if n, _ := strconv.Atoi(m[1]); n >= 1 && n <= len(batch) && strings.Contains(batch[n-1], " htb ") {
			kind = "htb"
		}
	}
	return fmt.Sprintf("the Docker host's kernel has no %s qdisc (sch_%s): run `sudo modprobe sch_%s` on the host, or use a kernel built with CONFIG_NET_SCH_%s",
		kind, kind, kind, strings.ToUpper(kind))
}
