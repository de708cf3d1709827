package compose

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/backend"
)

func TestNetemArgs(t *testing.T) {
	for _, c := range []struct {
		imp  backend.Impairment
		want string
	}{
		{backend.Impairment{Delay: 50 * time.Millisecond}, "delay 50ms"},
		{backend.Impairment{Delay: 50 * time.Millisecond, Jitter: 5 * time.Millisecond}, "delay 50ms 5ms"},
		{backend.Impairment{Delay: 1500 * time.Microsecond}, "delay 1500us"},
		{backend.Impairment{Delay: 2 * time.Second}, "delay 2000ms"},
		{backend.Impairment{LossPercent: 5}, ""}, // a BPF filter's, both ways
		{backend.Impairment{Delay: 20 * time.Millisecond, LossPercent: 1, RateKbit: 512}, "delay 20ms"},
		{backend.Impairment{RateKbit: 512}, ""}, // the HTB class's rate, no netem
	} {
		if got := strings.Join(netemArgs(c.imp), " "); got != c.want {
			t.Errorf("%+v: got %q, want %q", c.imp, got, c.want)
		}
	}
}

func TestCheckImpairment(t *testing.T) {
	for _, c := range []struct {
		imp  backend.Impairment
		want string // "" = valid
	}{
		{backend.Impairment{Delay: time.Millisecond}, ""},
		{backend.Impairment{LossPercent: 100}, ""},
		{backend.Impairment{RateKbit: 8}, ""},
		{backend.Impairment{}, "sets nothing"},
		{backend.Impairment{Delay: -time.Millisecond}, "delay -1ms"},
		{backend.Impairment{Delay: time.Millisecond, Jitter: -time.Millisecond}, "jitter -1ms"},
		{backend.Impairment{Jitter: time.Millisecond}, "without a delay"},
		{backend.Impairment{LossPercent: 101}, "loss 101%: want 0 to 100"},
		{backend.Impairment{LossPercent: -1}, "loss -1%"},
		{backend.Impairment{RateKbit: -5}, "rate -5 kbit"},
	} {
		err := checkImpairment(c.imp)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%+v: got %v, want %q", c.imp, err, c.want)
		}
	}
}

func TestTCBatch(t *testing.T) {
	delay := backend.Impairment{Delay: 50 * time.Millisecond}
	gw := []netip.Addr{netip.MustParseAddr("172.18.0.1")}
	drop100To := func(dst string) string {
		return "filter add dev eth0 parent 1: protocol all prio 1 bpf da bytecode \"" +
			bytecode(dropProgram(ipDstOff, netip.MustParseAddr(dst), nil, 1)) + "\""
	}
	for _, c := range []struct {
		name       string
		whole      backend.Impairment
		links      []link
		netemDelay bool
		want       []string
	}{
		{name: "nothing"},
		{name: "whole interface delay by netem: the harness's class is not", whole: delay, netemDelay: true, want: []string{
			"qdisc add dev eth0 root handle 1: htb default 1",
			"class add dev eth0 parent 1: classid 1:1 htb rate 10gbit burst 1mb cburst 1mb quantum 1514",
			"qdisc add dev eth0 parent 1:1 handle 11: netem delay 50ms",
			"class add dev eth0 parent 1: classid 1:fff htb rate 10gbit burst 1mb cburst 1mb quantum 1514",
			"filter add dev eth0 parent 1: protocol ip prio 2 u32 match ip dst 172.18.0.1/32 flowid 1:fff",
		}},
		{name: "whole interface delay by nfqueue: no qdisc", whole: delay},
		{name: "whole interface rate only: no netem", whole: backend.Impairment{RateKbit: 256}, want: []string{
			"qdisc add dev eth0 root handle 1: htb default 1",
			"class add dev eth0 parent 1: classid 1:1 htb rate 256kbit quantum 1514",
			"class add dev eth0 parent 1: classid 1:fff htb rate 10gbit burst 1mb cburst 1mb quantum 1514",
			"filter add dev eth0 parent 1: protocol ip prio 2 u32 match ip dst 172.18.0.1/32 flowid 1:fff",
		}},
		{name: "one link's loss: a drop filter each way, no class", links: []link{{Peer: "bob", IP: "172.18.0.3", Imp: backend.Impairment{LossPercent: 100}}}, want: []string{
			"qdisc add dev eth0 root handle 1: htb default 1",
			"class add dev eth0 parent 1: classid 1:1 htb rate 10gbit burst 1mb cburst 1mb quantum 1514",
			drop100To("172.18.0.3"),
			"qdisc add dev eth0 handle ffff: ingress",
			"filter add dev eth0 parent ffff: protocol all prio 1 bpf da bytecode \"" + bytecode(dropProgram(ipSrcOff, netip.MustParseAddr("172.18.0.3"), nil, 1)) + "\"",
		}},
		{name: "links in peer order, whole too", whole: delay, netemDelay: true, links: []link{
			{Peer: "dave", IP: "172.18.0.5", Imp: backend.Impairment{RateKbit: 64}},
			{Peer: "bob", IP: "172.18.0.3", Imp: backend.Impairment{Delay: 10 * time.Millisecond, Jitter: time.Millisecond, RateKbit: 1000}},
		}, want: []string{
			"qdisc add dev eth0 root handle 1: htb default 1",
			"class add dev eth0 parent 1: classid 1:1 htb rate 10gbit burst 1mb cburst 1mb quantum 1514",
			"qdisc add dev eth0 parent 1:1 handle 11: netem delay 50ms",
			"class add dev eth0 parent 1: classid 1:fff htb rate 10gbit burst 1mb cburst 1mb quantum 1514",
			"filter add dev eth0 parent 1: protocol ip prio 2 u32 match ip dst 172.18.0.1/32 flowid 1:fff",
			"class add dev eth0 parent 1: classid 1:2 htb rate 1000kbit quantum 1514",
			"qdisc add dev eth0 parent 1:2 handle 12: netem delay 10ms 1ms",
			"filter add dev eth0 parent 1: protocol ip prio 2 u32 match ip dst 172.18.0.3/32 flowid 1:2",
			"class add dev eth0 parent 1: classid 1:3 htb rate 64kbit quantum 1514",
			"filter add dev eth0 parent 1: protocol ip prio 2 u32 match ip dst 172.18.0.5/32 flowid 1:3",
		}},
	} {
		got := tcBatch(c.whole, c.links, gw, c.netemDelay)
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s:\ngot\n  %s\nwant\n  %s", c.name, strings.Join(got, "\n  "), strings.Join(c.want, "\n  "))
		}
	}
	// Class and handle numbers are hex to tc: the 15th link is 1:10, its netem 20:.
	var many []link
	for i := 0; i < 15; i++ {
		many = append(many, link{Peer: string(rune('a' + i)), IP: "10.0.0.1", Imp: delay})
	}
	got := strings.Join(tcBatch(backend.Impairment{}, many, gw, true), "\n")
	if !strings.Contains(got, "classid 1:10 htb") || !strings.Contains(got, "parent 1:10 handle 20: netem") || !strings.Contains(got, "flowid 1:10") {
		t.Errorf("16th class not in hex:\n%s", got)
	}
}

func TestExplainTC(t *testing.T) {
	batch := tcBatch(backend.Impairment{Delay: time.Millisecond}, nil, nil, true)
	got := explainTC("docker run …: exit status 1: Error: Specified qdisc kind is unknown.\nCommand failed -:3", batch)
	if !strings.Contains(got, "no netem qdisc") || !strings.Contains(got, "sudo modprobe sch_netem") || strings.Contains(got, "\n") {
		t.Errorf("netem missing: %q", got)
	}
	got = explainTC("Error: Specified qdisc kind is unknown.\nCommand failed -:1", batch)
	if !strings.Contains(got, "sudo modprobe sch_htb") {
		t.Errorf("htb missing: %q", got)
	}
	if got := explainTC("RTNETLINK answers: Operation not permitted\nCommand failed -:1", batch); !strings.Contains(got, "Operation not permitted") {
		t.Errorf("other errors pass through: %q", got)
	}
}

// The helper gets NET_ADMIN and nothing else, joins the target's network
// namespace, carries the run's labels and removes itself.
func TestHelperArgs(t *testing.T) {
	got := strings.Join(helperArgs("R-1", "launch1", "abc123", "lnbench/lnd:x"), " ")
	want := "run --rm -i --network container:abc123 --cap-drop ALL --cap-add NET_ADMIN --security-opt no-new-privileges:true --read-only " +
		"--user 0:0 --label lnbench.run=R-1 --label lnbench.role=netem-helper --label lnbench.network=launch1 " +
		"--entrypoint bash lnbench/lnd:x -c " + tcScript
	if got != want {
		t.Errorf("got\n  %s\nwant\n  %s", got, want)
	}
	if got := strings.Join(helperArgs("R-1", "", "abc", "img"), " "); strings.Contains(got, "lnbench.network") {
		t.Errorf("no network name, no network label: %s", got)
	}
}
