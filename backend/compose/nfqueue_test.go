package compose

import (
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/lnbench/lnbench/backend"
)

func TestNFRules(t *testing.T) {
	ms := time.Millisecond
	gw := []netip.Addr{netip.MustParseAddr("172.18.0.1")}
	head := "*filter\n:LNBENCH_IN - [0:0]\n-A LNBENCH_IN -s 172.18.0.1/32 -j RETURN\n"
	cases := []struct {
		name     string
		whole    backend.Impairment
		links    []link
		want     string
		delayers []delayer
	}{
		{"nothing: the chain only spares the harness", backend.Impairment{}, nil, head + "COMMIT\n", nil},
		{"whole interface delay with jitter: held on the way in", backend.Impairment{Delay: 50 * ms, Jitter: 5 * ms}, nil,
			head + "-A LNBENCH_IN -i eth0 -j NFQUEUE --queue-num 7 --queue-bypass\nCOMMIT\n",
			[]delayer{{7, backend.Impairment{Delay: 50 * ms, Jitter: 5 * ms}, "-i eth0"}}},
		{"link loss only: nothing here (BPF's)", backend.Impairment{}, []link{{Peer: "bob", IP: "10.1.0.3", Imp: backend.Impairment{LossPercent: 5}}},
			head + "-A LNBENCH_IN -s 10.1.0.3/32 -j RETURN\nCOMMIT\n", nil},
		{"links in name order replace the whole interface's; queues numbered on",
			backend.Impairment{LossPercent: 1, Delay: 10 * ms},
			[]link{
				{Peer: "dave", IP: "10.1.0.5", Imp: backend.Impairment{Delay: 20 * ms, LossPercent: 2.5, RateKbit: 64}},
				{Peer: "bob", IP: "10.1.0.3", Imp: backend.Impairment{Delay: 50 * ms}},
			},
			head +
				"-A LNBENCH_IN -s 10.1.0.3/32 -j NFQUEUE --queue-num 7 --queue-bypass\n-A LNBENCH_IN -s 10.1.0.3/32 -j RETURN\n" +
				"-A LNBENCH_IN -s 10.1.0.5/32 -j NFQUEUE --queue-num 8 --queue-bypass\n-A LNBENCH_IN -s 10.1.0.5/32 -j RETURN\n" +
				"-A LNBENCH_IN -i eth0 -j NFQUEUE --queue-num 9 --queue-bypass\nCOMMIT\n",
			[]delayer{{7, backend.Impairment{Delay: 50 * ms}, "-s 10.1.0.3/32"}, {8, backend.Impairment{Delay: 20 * ms, LossPercent: 2.5, RateKbit: 64}, "-s 10.1.0.5/32"}, {9, backend.Impairment{Delay: 10 * ms, LossPercent: 1}, "-i eth0"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ds := nfRules(c.whole, c.links, gw, 7)
			if got != c.want {
				t.Errorf("rules:\n%s\nwant:\n%s", got, c.want)
			}
			if !slices.Equal(ds, c.delayers) {
				t.Errorf("delayers %+v, want %+v", ds, c.delayers)
			}
		})
	}
}

func TestNetdelayArgs(t *testing.T) {
	got := netdelayArgs(delayer{Queue: 2, Imp: backend.Impairment{Delay: 50 * time.Millisecond, Jitter: 5 * time.Millisecond}})
	want := []string{"netdelay", "--queue", "2", "--delay", "50ms", "--jitter", "5ms"}
	if !slices.Equal(got, want) {
		t.Errorf("%q, want %q", got, want)
	}
	if got := netdelayArgs(delayer{Queue: 0, Imp: backend.Impairment{Delay: 1500 * time.Microsecond}}); !slices.Equal(got, []string{"netdelay", "--queue", "0", "--delay", "1.5ms"}) {
		t.Errorf("%q", got)
	}
}
