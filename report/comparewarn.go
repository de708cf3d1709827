package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/lnbench/lnbench/record"
)

// setupDifferences are the reasons two runs may differ other than the
// change under test: another backend, another machine (CPU model, cores),
// or node specs built or configured differently. Specs are matched by
// label, those of runs written before specs had labels by build (matchSpecs).
func setupDifferences(base, nw Report) []string {
	var out []string
	if base.Backend != nw.Backend {
		out = append(out, fmt.Sprintf("backends differ: base %s, new %s", orUnknown(base.Backend), orUnknown(nw.Backend)))
	}
	if base.Env.CPU != nw.Env.CPU || base.Env.Cores != nw.Env.Cores {
		out = append(out, fmt.Sprintf("machines differ: base %s (%d cores), new %s (%d cores)",
			orUnknown(base.Env.CPU), base.Env.Cores, orUnknown(nw.Env.CPU), nw.Env.Cores))
	}
	for _, m := range matchSpecs(base.Nodes, nw.Nodes) {
		switch {
		case m[1] < 0:
			out = append(out, fmt.Sprintf("node spec %s is only in base", specName(base.Nodes[m[0]])))
		case m[0] < 0:
			out = append(out, fmt.Sprintf("node spec %s is only in new", specName(nw.Nodes[m[1]])))
		default:
			b := base.Nodes[m[0]]
			if d := specDiff(b, nw.Nodes[m[1]]); len(d) > 0 {
				out = append(out, fmt.Sprintf("node spec %s differs: %s", specName(b), strings.Join(d, "; ")))
			}
		}
	}
	return out
}

// matchSpecs pairs the specs of two runs (indexes; -1 = none), base order
// first, then new specs left over. Labels match labels. A spec without a
// label (a run written before specs had labels) matches a spec left over
// of the same build (lnd@v0.21.0-beta), else the first one left over: an
// older run of one spec compares with a newer labelled run of it.
func matchSpecs(base, nw []record.NodeInfo) [][2]int {
	pair := make([]int, len(base)) // base index → new index
	taken := make([]bool, len(nw))
	for i := range pair {
		pair[i] = -1
	}
	match := func(ok func(b, n record.NodeInfo) bool) {
		for i, b := range base {
			for j, n := range nw {
				if pair[i] < 0 && !taken[j] && ok(b, n) {
					pair[i], taken[j] = j, true
				}
			}
		}
	}
	unlabelled := func(b, n record.NodeInfo) bool { return b.Label == "" || n.Label == "" }
	match(func(b, n record.NodeInfo) bool { return b.Label != "" && b.Label == n.Label })
	match(func(b, n record.NodeInfo) bool { return unlabelled(b, n) && buildID(b) == buildID(n) })
	match(unlabelled)
	var out [][2]int
	for i, j := range pair {
		out = append(out, [2]int{i, j})
	}
	for j := range nw {
		if !taken[j] {
			out = append(out, [2]int{-1, j})
		}
	}
	return out
}

// buildID is the build a spec ran: its build string, or for runs that
// did not record one, implementation@version.
func buildID(n record.NodeInfo) string {
	if n.Build != "" {
		return n.Build
	}
	return n.Implementation + "@" + n.Version
}

// specDiff lists what differs between two runs of one spec.
func specDiff(b, n record.NodeInfo) []string {
	var out []string
	field := func(name, bv, nv string) {
		if bv != nv {
			out = append(out, fmt.Sprintf("%s %s → %s", name, orUnknown(bv), orUnknown(nv)))
		}
	}
	field("implementation", b.Implementation, n.Implementation)
	field("version", b.Version, n.Version)
	field("build", buildID(b), buildID(n))
	field("build key", short(b.Key), short(n.Key))
	field("commit", short(b.Commit), short(n.Commit))
	if b.Dirty != n.Dirty {
		out = append(out, fmt.Sprintf("dirty %v → %v", b.Dirty, n.Dirty))
	}
	field("Go", b.GoVersion, n.GoVersion)
	field("tags", strings.Join(b.Tags, ","), strings.Join(n.Tags, ","))
	field("PGO profile", short(b.PGOHash), short(n.PGOHash))
	field("profile", b.Profile, n.Profile)
	var removed, added []string
	for _, f := range b.Flags {
		if !slices.Contains(n.Flags, f) {
			removed = append(removed, f)
		}
	}
	for _, f := range n.Flags {
		if !slices.Contains(b.Flags, f) {
			added = append(added, f)
		}
	}
	if len(removed)+len(added) > 0 {
		out = append(out, fmt.Sprintf("flags -[%s] +[%s]", strings.Join(removed, " "), strings.Join(added, " ")))
	}
	return out
}

func orUnknown(s string) string {
	if s == "" {
		return "(unknown)"
	}
	return s
}
