package compose

import (
	"encoding/binary"
	"net/netip"
	"strings"
	"testing"

	"github.com/lnbench/lnbench/backend"
)

// runBPF interprets the opcodes dropProgram emits, on an Ethernet frame,
// with rnd as the random ancillary load's value.
func runBPF(t *testing.T, prog []bpfInsn, frame []byte, rnd uint32) uint32 {
	t.Helper()
	var a uint32
	for pc := 0; pc < len(prog); pc++ {
		in := prog[pc]
		switch in.code {
		case bpfLdH:
			a = uint32(binary.BigEndian.Uint16(frame[in.k:]))
		case bpfLdW:
			if in.k == skfRandom {
				a = rnd
			} else {
				a = binary.BigEndian.Uint32(frame[in.k:])
			}
		case bpfJeq, bpfJge:
			if in.code == bpfJeq && a == in.k || in.code == bpfJge && a >= in.k {
				pc += int(in.jt)
			} else {
				pc += int(in.jf)
			}
		case bpfRet:
			return in.k
		default:
			t.Fatalf("opcode %#x", in.code)
		}
	}
	t.Fatal("fell off the program")
	return 0
}

func frame(etherType uint16, src, dst string) []byte {
	f := make([]byte, 14+20)
	binary.BigEndian.PutUint16(f[12:], etherType)
	s, d := netip.MustParseAddr(src).As4(), netip.MustParseAddr(dst).As4()
	copy(f[ipSrcOff:], s[:])
	copy(f[ipDstOff:], d[:])
	return f
}

func TestDropProgram(t *testing.T) {
	bob, gw, carol := netip.MustParseAddr("172.18.0.3"), netip.MustParseAddr("172.18.0.1"), netip.MustParseAddr("172.18.0.4")
	const half = 1 << 31
	cases := []struct {
		name  string
		off   uint32
		match netip.Addr
		skip  []netip.Addr
		p     float64
		frame []byte
		rnd   uint32
		want  uint32
	}{
		{"lost: the draw is below p", ipDstOff, netip.Addr{}, nil, 0.2, frame(0x0800, "172.18.0.2", "172.18.0.3"), 0, tcActShot},
		{"kept: the draw is above p", ipDstOff, netip.Addr{}, nil, 0.2, frame(0x0800, "172.18.0.2", "172.18.0.3"), half, tcActUnspec},
		{"20% is a fifth of the draws", ipDstOff, netip.Addr{}, nil, 0.2, frame(0x0800, "172.18.0.2", "172.18.0.3"), 858993459 - 1, tcActShot},
		{"ARP is never dropped", ipDstOff, netip.Addr{}, nil, 1, frame(0x0806, "172.18.0.2", "172.18.0.3"), 0, tcActUnspec},
		{"the harness is exempt, outgoing", ipDstOff, netip.Addr{}, []netip.Addr{gw, carol}, 1, frame(0x0800, "172.18.0.2", "172.18.0.1"), 0, tcActUnspec},
		{"the harness is exempt, incoming", ipSrcOff, netip.Addr{}, []netip.Addr{gw}, 1, frame(0x0800, "172.18.0.1", "172.18.0.2"), 0, tcActUnspec},
		{"a skipped link peer keeps its own impairment", ipDstOff, netip.Addr{}, []netip.Addr{gw, carol}, 1, frame(0x0800, "172.18.0.2", "172.18.0.4"), 0, tcActUnspec},
		{"others are dropped at 100%", ipDstOff, netip.Addr{}, []netip.Addr{gw, carol}, 1, frame(0x0800, "172.18.0.2", "172.18.0.3"), ^uint32(0), tcActShot},
		{"a link drops its peer's packets", ipDstOff, bob, nil, 1, frame(0x0800, "172.18.0.2", "172.18.0.3"), 0, tcActShot},
		{"a link spares the others", ipDstOff, bob, nil, 1, frame(0x0800, "172.18.0.2", "172.18.0.4"), 0, tcActUnspec},
		{"a link matches the source on the way in", ipSrcOff, bob, nil, 1, frame(0x0800, "172.18.0.3", "172.18.0.2"), 0, tcActShot},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			prog := dropProgram(c.off, c.match, c.skip, c.p)
			if got := runBPF(t, prog, c.frame, c.rnd); got != c.want {
				t.Errorf("verdict %d, want %d (program %s)", int32(got), int32(c.want), bytecode(prog))
			}
		})
	}
}

func TestLossFilters(t *testing.T) {
	gw := []netip.Addr{netip.MustParseAddr("172.18.0.1")}
	links := []link{{Peer: "carol", IP: "172.18.0.4", Imp: backend0()}, {Peer: "bob", IP: "172.18.0.3", Imp: lossy(50)}}
	eg, in := lossFilters(20, links, gw)
	if len(eg) != 2 || len(in) != 3 || in[0] != "qdisc add dev eth0 handle ffff: ingress" {
		t.Fatalf("egress %q\ningress %q", eg, in)
	}
	// bob's link first (its own 50%), then the whole interface's 20%, which
	// skips the harness and both link peers.
	if want := bytecode(dropProgram(ipDstOff, netip.MustParseAddr("172.18.0.3"), nil, 0.5)); !strings.Contains(eg[0], want) {
		t.Errorf("link filter %q, want %q", eg[0], want)
	}
	whole := dropProgram(ipSrcOff, netip.Addr{}, []netip.Addr{gw[0], netip.MustParseAddr("172.18.0.4"), netip.MustParseAddr("172.18.0.3")}, 0.2)
	if !strings.Contains(in[2], bytecode(whole)) || !strings.HasPrefix(in[2], "filter add dev eth0 parent ffff: protocol all prio 1 bpf da bytecode \"") {
		t.Errorf("whole ingress filter %q", in[2])
	}
	if eg, in := lossFilters(0, links[:1], gw); eg != nil || in != nil {
		t.Errorf("no loss: %q %q", eg, in)
	}
}

func backend0() backend.Impairment       { return backend.Impairment{RateKbit: 64} }
func lossy(p float64) backend.Impairment { return backend.Impairment{LossPercent: p} }
