// Package flamegraph renders flame graphs as SVG in the manner of Brendan
// Gregg's FlameGraph (flamegraph.pl, difffolded.pl), from folded stacks or
// pprof profiles, plus top-frame tables for reports.
//
// Folded stacks are one stack a line, frames root first separated by ';',
// then a space and the sample count:
//
//	main.main;main.work;runtime.mallocgc 12
package flamegraph

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// Stack is one folded-stack line: its frames, root first, and its count.
type Stack struct {
	Frames []string
	Count  int64
}

// Folded is a set of folded stacks. The same stack may occur more than once
// (counts add up); Merge folds such repeats into one.
type Folded []Stack

// Total is the sum of all counts.
func (f Folded) Total() int64 {
	var t int64
	for _, s := range f {
		t += s.Count
	}
	return t
}

// Merge returns the stacks with identical frames summed, without stacks of
// count 0, sorted by their folded text: a canonical form.
func (f Folded) Merge() Folded {
	type keyed struct {
		key string
		Stack
	}
	idx := make(map[string]int, len(f))
	ks := make([]keyed, 0, len(f))
	for _, s := range f {
		if s.Count == 0 {
			continue
		}
		k := strings.Join(s.Frames, ";")
		if i, ok := idx[k]; ok {
			ks[i].Count += s.Count
			continue
		}
		idx[k] = len(ks)
		ks = append(ks, keyed{k, Stack{Frames: append([]string(nil), s.Frames...), Count: s.Count}})
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i].key < ks[j].key })
	out := make(Folded, len(ks))
	for i, k := range ks {
		out[i] = k.Stack
	}
	return out
}

// Write writes the stacks in folded format, one line each, in order.
func (f Folded) Write(w io.Writer) error {
	bw := bufio.NewWriter(w)
	for _, s := range f {
		bw.WriteString(strings.Join(s.Frames, ";"))
		bw.WriteByte(' ')
		bw.WriteString(strconv.FormatInt(s.Count, 10))
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// Parse reads folded stacks. Blank lines are skipped; any other line must
// end in a space and a non-negative integer count. Lines keep their order
// and repeats are not merged (see Merge).
func Parse(r io.Reader) (Folded, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 64<<20)
	var out Folded
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), " \t\r")
		if line == "" {
			continue
		}
		i := strings.LastIndexAny(line, " \t")
		if i <= 0 {
			return nil, fmt.Errorf("folded stacks line %d: want \"frame;frame;... count\", got %q", n, clip(line))
		}
		count, err := strconv.ParseInt(line[i+1:], 10, 64)
		if err != nil || count < 0 {
			return nil, fmt.Errorf("folded stacks line %d: bad count %q", n, clip(line[i+1:]))
		}
		stack := strings.TrimRight(line[:i], " \t")
		if stack == "" {
			return nil, fmt.Errorf("folded stacks line %d: empty stack", n)
		}
		out = append(out, Stack{Frames: strings.Split(stack, ";"), Count: count})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("folded stacks: %w", err)
	}
	return out, nil
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}
