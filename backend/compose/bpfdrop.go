package compose

import (
	"fmt"
	"math"
	"net/netip"
	"strings"
)

// Loss is a classic-BPF program in a tc filter that drops packets at
// random, on both of the actor's directions: on the egress HTB root, after
// its own stack (TCP counts the packet sent and must retransmit it, as on
// a lossy link; an iptables drop in OUTPUT is reported back to the
// sender's stack, which resends at once: 583 drops gave 1 retransmit), and
// on the ingress qdisc, before its stack. It needs cls_bpf and sch_ingress,
// not sch_netem or act_gact (absent on this project's kernels).

// MechBPF names the loss mechanism in fault records.
const MechBPF = "bpf"

// Offsets in an Ethernet frame (cls_bpf sees the MAC header on both hooks).
const (
	etherTypeOff = 12
	ipSrcOff     = 14 + 12
	ipDstOff     = 14 + 16
)

// Classic BPF: the opcodes used, tc's verdicts, the random ancillary load.
const (
	bpfLdH      = 0x28       // ldh [k]
	bpfLdW      = 0x20       // ld [k]
	bpfJeq      = 0x15       // jeq #k
	bpfJge      = 0x35       // jge #k
	bpfRet      = 0x06       // ret #k
	skfRandom   = 0xfffff038 // SKF_AD_OFF + SKF_AD_RANDOM
	tcActShot   = 2          // drop
	tcActUnspec = 0xffffffff // -1: not decided here, the next filter decides
)

type bpfInsn struct {
	code   uint16
	jt, jf uint8
	k      uint32
}

// dropProgram drops, with probability p, the IPv4 packets whose address at
// off is match (every address when match is invalid) and not one of skip;
// it passes every other packet on to the next filter.
func dropProgram(off uint32, match netip.Addr, skip []netip.Addr, p float64) []bpfInsn {
	var prog []bpfInsn
	// Jumps are resolved once the length is known: pass is the last
	// instruction, drop the one before.
	const toPass, toNext = 255, 0
	prog = append(prog, bpfInsn{code: bpfLdH, k: etherTypeOff}, bpfInsn{code: bpfJeq, jt: toNext, jf: toPass, k: 0x0800},
		bpfInsn{code: bpfLdW, k: off})
	for _, a := range skip {
		prog = append(prog, bpfInsn{code: bpfJeq, jt: toPass, jf: toNext, k: addrWord(a)})
	}
	if match.IsValid() {
		prog = append(prog, bpfInsn{code: bpfJeq, jt: toNext, jf: toPass, k: addrWord(match)})
	}
	if p < 1 {
		prog = append(prog, bpfInsn{code: bpfLdW, k: skfRandom},
			bpfInsn{code: bpfJge, jt: toPass, jf: toNext, k: uint32(math.Round(p * (1 << 32)))})
	}
	prog = append(prog, bpfInsn{code: bpfRet, k: tcActShot}, bpfInsn{code: bpfRet, k: tcActUnspec})
	pass := len(prog) - 1
	for i := range prog {
		if prog[i].jt == toPass {
			prog[i].jt = uint8(pass - i - 1)
		}
		if prog[i].jf == toPass {
			prog[i].jf = uint8(pass - i - 1)
		}
	}
	return prog
}

func addrWord(a netip.Addr) uint32 {
	b := a.As4()
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

// bytecode is a program as tc's `bpf bytecode` reads it.
func bytecode(prog []bpfInsn) string {
	parts := []string{fmt.Sprint(len(prog))}
	for _, in := range prog {
		parts = append(parts, fmt.Sprintf("%d %d %d %d", in.code, in.jt, in.jf, in.k))
	}
	return strings.Join(parts, ",")
}

// ingressHandle is the ingress qdisc's parent for filters.
const ingressHandle = "ffff:"

// lossFilters are the tc batch lines that drop an actor's packets for the
// loss of whole and links, both ways, sparing exempt addresses. A link's
// impairment replaces the whole interface's for that peer, as in tcBatch.
// Egress filters go on the HTB root before its class filters (prio 1);
// none when nothing is lost.
func lossFilters(whole float64, links []link, exempt []netip.Addr) (egress, ingress []string) {
	var peers []netip.Addr
	for _, l := range links {
		if a, err := netip.ParseAddr(l.IP); err == nil {
			peers = append(peers, a)
		}
	}
	add := func(match netip.Addr, skip []netip.Addr, p float64) {
		egress = append(egress, fmt.Sprintf("filter add dev %s parent 1: protocol all prio 1 bpf da bytecode \"%s\"", netDev, bytecode(dropProgram(ipDstOff, match, skip, p/100))))
		ingress = append(ingress, fmt.Sprintf("filter add dev %s parent %s protocol all prio 1 bpf da bytecode \"%s\"", netDev, ingressHandle, bytecode(dropProgram(ipSrcOff, match, skip, p/100))))
	}
	for _, l := range sortedLinks(links) {
		if a, err := netip.ParseAddr(l.IP); err == nil && l.Imp.LossPercent > 0 {
			add(a, nil, l.Imp.LossPercent)
		}
	}
	if whole > 0 {
		add(netip.Addr{}, append(append([]netip.Addr(nil), exempt...), peers...), whole)
	}
	if len(ingress) > 0 {
		ingress = append([]string{fmt.Sprintf("qdisc add dev %s handle %s ingress", netDev, ingressHandle)}, ingress...)
	}
	return egress, ingress
}

// dropProbe fails exactly when lossFilters' lines would: a classic-BPF
// filter on an HTB root and on the ingress qdisc of a throwaway loopback.
const dropProbe = "tc qdisc add dev lo root handle 1: htb && tc qdisc add dev lo handle ffff: ingress && " +
	"tc filter add dev lo parent 1: protocol all prio 1 bpf da bytecode '1,6 0 0 4294967295' && " +
	"tc filter add dev lo parent ffff: protocol all prio 1 bpf da bytecode '1,6 0 0 4294967295'"
