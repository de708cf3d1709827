package flamegraph

import (
	"sort"
	"strings"
	"unicode/utf8"
)

// node is one frame of the merged call tree: every stack sharing the same
// prefix of frames goes through the same node.
type node struct {
	name     string
	value    int64 // inclusive count (after, in a differential graph)
	before   int64 // inclusive count in the baseline (differential only)
	children []*node
	index    map[string]*node
}

func (n *node) child(name string) *node {
	if c, ok := n.index[name]; ok {
		return c
	}
	c := &node{name: name}
	if n.index == nil {
		n.index = map[string]*node{}
	}
	n.index[name] = c
	n.children = append(n.children, c)
	return c
}

// buildTree merges identical frame prefixes, with children sorted by name
// as flamegraph.pl sorts its input, so that widths and positions depend on
// the counts only, not on the input order.
func buildTree(f Folded) *node {
	root := &node{name: "all"}
	for _, s := range f {
		if s.Count <= 0 {
			continue
		}
		n := root
		n.value += s.Count
		for _, fr := range s.Frames {
			n = n.child(fr)
			n.value += s.Count
		}
	}
	root.sortChildren()
	return root
}

func (n *node) sortChildren() {
	sort.Slice(n.children, func(i, j int) bool { return n.children[i].name < n.children[j].name })
	for _, c := range n.children {
		c.sortChildren()
	}
}

// addBefore adds the baseline's counts to the nodes of an existing tree,
// along each baseline stack for as long as its path exists in the tree.
func (n *node) addBefore(f Folded) {
	for _, s := range f {
		if s.Count <= 0 {
			continue
		}
		m := n
		m.before += s.Count
		for _, fr := range s.Frames {
			if m = m.index[fr]; m == nil {
				break
			}
			m.before += s.Count
		}
	}
}

// box is one frame as drawn.
type box struct {
	name   string
	depth  int   // 0 for the root "all"
	start  int64 // samples left of the frame
	value  int64
	before int64
	x, w   float64 // pixels
}

// layout places every frame at least minWidth pixels wide (narrower ones
// and their descendants are dropped, as flamegraph.pl --minwidth does) in
// an area of width pixels starting at x0.
func layout(root *node, x0, width, minWidth float64) []box {
	if root.value <= 0 {
		return nil
	}
	perSample := width / float64(root.value)
	var out []box
	var walk func(n *node, depth int, start int64)
	walk = func(n *node, depth int, start int64) {
		w := float64(n.value) * perSample
		if w < minWidth {
			return
		}
		out = append(out, box{name: n.name, depth: depth, start: start, value: n.value,
			before: n.before, x: x0 + float64(start)*perSample, w: w})
		for _, c := range n.children {
			walk(c, depth+1, start)
			start += c.value
		}
	}
	walk(root, 0, 0)
	return out
}

// fitLabel is the label that fits in w pixels: the name; else, for a name
// with a package path, the name without its directory
// (github.com/lightningnetwork/lnd/htlcswitch.(*Switch).SendHTLC becomes
// htlcswitch.(*Switch).SendHTLC); else that cut to the characters that fit,
// ending in "..", or "" when fewer than 3 characters fit (flamegraph.pl's
// rule). The embedded script applies the same rule when zooming.
func fitLabel(name string, w, charWidth float64) string {
	chars := int(w / charWidth)
	if chars < 3 {
		return ""
	}
	if utf8.RuneCountInString(name) <= chars {
		return name
	}
	r := []rune(shortName(name))
	if len(r) <= chars {
		return string(r)
	}
	return string(r[:chars-2]) + ".."
}

// shortName drops the directory of a frame's package path.
func shortName(name string) string {
	s := name
	if i := strings.IndexAny(s, "[ "); i >= 0 {
		s = s[:i]
	}
	return name[strings.LastIndexByte(s, '/')+1:]
}
