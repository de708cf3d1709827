package flamegraph

import (
	"fmt"
	"hash/fnv"
	"math"
	"strings"
)

// Package returns the Go package path of a frame named as pprof prints
// functions: "github.com/lightningnetwork/lnd/htlcswitch.(*Switch).SendHTLC"
// gives "github.com/lightningnetwork/lnd/htlcswitch", "runtime.mallocgc"
// gives "runtime". A frame that does not look like a Go function (no '.'
// after its last '/') is its own package.
func Package(frame string) string {
	s := frame
	if i := strings.IndexAny(s, "[ "); i >= 0 {
		s = s[:i] // type arguments: pkg.F[go.shape.int,github.com/x/y.T]
	}
	slash := strings.LastIndexByte(s, '/')
	dot := strings.IndexByte(s[slash+1:], '.')
	if dot <= 0 {
		return frame
	}
	return s[:slash+1+dot]
}

// hotColor is flamegraph.pl's "hot" palette with --hash, except that the
// hash is of the frame's package path (FNV-1a), so that every frame of a
// package has the same colour in every graph.
func hotColor(frame string) string {
	h := fnv.New64a()
	h.Write([]byte(Package(frame)))
	sum := h.Sum64()
	v1 := float64(sum&0xffff) / 0xffff
	v2 := float64(sum>>16&0xffff) / 0xffff
	v3 := float64(sum>>32&0xffff) / 0xffff
	return fmt.Sprintf("rgb(%d,%d,%d)", 205+int(50*v3), int(230*v1), int(55*v2))
}

// diffColor is flamegraph.pl's colour for differential graphs: white for
// no change, red for growth and blue for shrinkage, more saturated the
// larger |delta| is relative to maxDelta.
func diffColor(delta, maxDelta float64) string {
	r, g, b := 255, 255, 255
	if maxDelta > 0 {
		v := math.Min(math.Abs(delta), maxDelta)
		c := int(210 * (maxDelta - v) / maxDelta)
		switch {
		case delta > 0:
			g, b = c, c
		case delta < 0:
			r, g = c, c
		}
	}
	return fmt.Sprintf("rgb(%d,%d,%d)", r, g, b)
}
