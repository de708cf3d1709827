package flamegraph

import (
	"bufio"
	"io"
	"sort"
	"strconv"
	"strings"
)

// DiffStack is one stack with its count in the baseline and in the new
// profile.
type DiffStack struct {
	Frames        []string
	Before, After int64
}

// DiffFolded pairs two profiles stack by stack, as difffolded.pl does; it
// renders with RenderDiff.
type DiffFolded []DiffStack

// Diff pairs the stacks of before and after (each merged), sorted by their
// folded text. Counts are kept raw; RenderDiff normalises by the totals.
func Diff(before, after Folded) DiffFolded {
	idx := map[string]int{}
	var out DiffFolded
	add := func(f Folded, isAfter bool) {
		for _, s := range f.Merge() {
			k := strings.Join(s.Frames, ";")
			i, ok := idx[k]
			if !ok {
				i = len(out)
				idx[k] = i
				out = append(out, DiffStack{Frames: s.Frames})
			}
			if isAfter {
				out[i].After += s.Count
			} else {
				out[i].Before += s.Count
			}
		}
	}
	add(before, false)
	add(after, true)
	sort.Slice(out, func(i, j int) bool {
		return strings.Join(out[i].Frames, ";") < strings.Join(out[j].Frames, ";")
	})
	return out
}

// Before returns the baseline's stacks.
func (d DiffFolded) Before() Folded { return d.side(false) }

// After returns the new profile's stacks.
func (d DiffFolded) After() Folded { return d.side(true) }

func (d DiffFolded) side(after bool) Folded {
	var out Folded
	for _, s := range d {
		c := s.Before
		if after {
			c = s.After
		}
		if c > 0 {
			out = append(out, Stack{Frames: s.Frames, Count: c})
		}
	}
	return out
}

// Write writes difffolded.pl's output format: "frames before after" lines,
// which flamegraph.pl renders as a differential graph.
func (d DiffFolded) Write(w io.Writer) error {
	bw := bufio.NewWriter(w)
	for _, s := range d {
		bw.WriteString(strings.Join(s.Frames, ";"))
		bw.WriteByte(' ')
		bw.WriteString(strconv.FormatInt(s.Before, 10))
		bw.WriteByte(' ')
		bw.WriteString(strconv.FormatInt(s.After, 10))
		bw.WriteByte('\n')
	}
	return bw.Flush()
}
