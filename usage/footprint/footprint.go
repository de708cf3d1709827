// Package footprint estimates what a network costs this machine before it
// starts: memory per node from measured resident sizes, checked against
// what the kernel says is available, and how many nodes may start at once.
package footprint

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

const mib = 1 << 20

// Measured resident sizes (RSS) of LND v0.21.0-beta and btcd v0.25.1 as
// local processes on a 2-core, 24 GiB machine of this workplace.
// Sources: shared/notes/lnd.md beside the repository (steady lnd 110–150 MiB under a 60-payment
// concurrent load on one channel, ≈320 MiB peak while starting, btcd
// 155–159 MiB), TestGeneratedGraph25 on 2026-11-22 (peak 316 MiB per lnd
// while starting, 70–114 MiB after setup and payments), and the cost curve
// of bench/scenarios/scale.yml on 2026-11-23 (random graphs, N = 10, 25,
// 50, 100: RSS per node at ready 105, 105, 107, 113 MiB, fitted slope
// 115 MiB per node; footprint=small 95 MiB per node at N = 100).
const (
	// NodeBytes is one LND node of a large generated network carrying its
	// traffic: the fitted slope with headroom for payments in flight.
	NodeBytes = 125 * mib
	// SmallNodeBytes is the same with footprint=small.
	SmallNodeBytes = 105 * mib
	// StartPeakBytes is one LND node while it starts (wallet, graph, TLS).
	StartPeakBytes = 320 * mib
	// ChainBytes is btcd.
	ChainBytes = 160 * mib
	// HarnessBytes is lnbench itself: gRPC connections, result stream.
	HarnessBytes = 256 * mib
)

// NodeBytesFor is one node's steady size with a footprint ("", "default"
// or "small").
func NodeBytesFor(footprintName string) int64 {
	if footprintName == "small" {
		return SmallNodeBytes
	}
	return NodeBytes
}

// Estimate is the memory a network of Nodes needs.
type Estimate struct {
	Nodes    int
	PerNode  int64 // bytes one node needs (a memory limit, when set, is the cap)
	Parallel int   // nodes starting at once
	Peak     int64 // bytes one node needs while it starts
	Bytes    int64
	// Limited is set when a per-node memory limit, not a measured size,
	// gave PerNode or Peak.
	Limited bool
}

// EstimateFor sizes a network of nodes of perNode bytes each (NodeBytesFor);
// perNodeLimit > 0 is a per-node memory limit.
func EstimateFor(nodes, parallel int, perNode, perNodeLimit int64) Estimate {
	per := perNode
	peak := int64(StartPeakBytes)
	limited := false
	if perNodeLimit > 0 {
		limited = perNodeLimit < per || perNodeLimit < peak
		per, peak = min(per, perNodeLimit), min(peak, perNodeLimit)
	}
	parallel = min(parallel, nodes)
	total := int64(nodes)*per + int64(parallel)*(peak-per) + ChainBytes + HarnessBytes
	return Estimate{Nodes: nodes, PerNode: per, Parallel: parallel, Peak: peak, Bytes: total, Limited: limited}
}

// Fits returns how many nodes fit in available bytes with the same
// per-node size and start parallelism.
func (e Estimate) Fits(available int64) int {
	fixed := int64(ChainBytes+HarnessBytes) + int64(e.Parallel)*(e.Peak-e.PerNode)
	if available <= fixed {
		return 0
	}
	return int((available - fixed) / e.PerNode)
}

// Check refuses an estimate above available memory with one line: the
// numbers, and what would fit instead.
func (e Estimate) Check(available int64) error {
	if e.Bytes <= available {
		return nil
	}
	fit := e.Fits(available)
	small := ""
	if e.PerNode > SmallNodeBytes {
		alt := e
		alt.PerNode = SmallNodeBytes
		small = fmt.Sprintf(", or footprint=small (+footprint=small on the node spec: at most %d nodes)", alt.Fits(available))
	}
	source := "measured"
	if e.Limited {
		source = "the node.memory limit you gave"
	}
	return fmt.Errorf("refusing to start %d nodes: they need ≈%s (%s per LND, %s; btcd %s; %d starting at once at %s), but this machine has %s available (MemAvailable). "+
		"What fits: at most %d nodes here (lower NodeCount)%s, or a machine with ≥ %s free",
		e.Nodes, human(e.Bytes), human(e.PerNode), source, human(ChainBytes), e.Parallel, human(e.Peak), human(available), fit, small, human(e.Bytes))
}

// Human writes bytes as MiB, or GiB with one decimal from 1 GiB on.
func Human(b int64) string { return human(b) }

func human(b int64) string {
	if b >= 1<<30 {
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	}
	return fmt.Sprintf("%d MiB", b/mib)
}

// Nodes starting at once per core: two where a start is mostly CPU (a
// full-scrypt LND, ≈4 s), eight where it mostly waits (100 restored
// lowscrypt LNDs took 33.6 s to start four at a time on 2 cores, 24.3 s
// eight, 18.8 s sixteen, the cores 95–100% busy only at sixteen;
// docs/measured.md, Snapshots).
const (
	StartsPerCore      = 2
	LightStartsPerCore = 8
)

// StartParallelism is how many of a network's nodes may start at once:
// perCore per core, no more than the network's nodes, and no more than
// memory holds at the start peak beside the network's other nodes of
// perNode bytes each, nor than half the available memory; at least 1.
func StartParallelism(cores, perCore int, available int64, nodes int, perNode int64) int {
	byMemory := int(available / 2 / StartPeakBytes)
	if perNode < StartPeakBytes {
		room := available - ChainBytes - HarnessBytes - int64(nodes)*perNode
		byMemory = min(byMemory, int(room/(StartPeakBytes-perNode)))
	}
	return max(1, min(perCore*cores, nodes, byMemory))
}

// MemAvailable reads MemAvailable from /proc/meminfo, in bytes.
func MemAvailable() (int64, error) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, fmt.Errorf("memory guard: %v", err)
	}
	defer f.Close()
	return parseMemAvailable(f)
}

func parseMemAvailable(r io.Reader) (int64, error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemAvailable:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				return 0, fmt.Errorf("memory guard: MemAvailable %q: %v", fields[1], err)
			}
			return kb * 1024, nil
		}
	}
	return 0, fmt.Errorf("memory guard: no MemAvailable in /proc/meminfo (kernel older than 3.14?)")
}
