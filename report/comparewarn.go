package report

import (
	"fmt"
	"slices"
	"strings"
)

// setupDifferences are the reasons two runs may differ other than the
// change under test: another backend, another machine (CPU model, cores),
// or node specs built or configured differently. Specs are matched by
// label (by position for runs written before specs had labels).
func setupDifferences(base, nw Report) []string {
	var out []string
	if base.Backend != nw.Backend {
		out = append(out, fmt.Sprintf("backends differ: base %s, new %s", orUnknown(base.Backend), orUnknown(nw.Backend)))
	}
	if base.Env.CPU != nw.Env.CPU || base.Env.Cores != nw.Env.Cores {
		out = append(out, fmt.Sprintf("machines differ: base %s (%d cores), new %s (%d cores)",
			orUnknown(base.Env.CPU), base.Env.Cores, orUnknown(nw.Env.CPU), nw.Env.Cores))
	}
	newSpecs := map[string]NodeInfo{}
	for i, n := range nw.Nodes {
		newSpecs[specID(n, i)] = n
	}
	for i, b := range base.Nodes {
		id := specID(b, i)
		n, ok := newSpecs[id]
		if !ok {
			out = append(out, fmt.Sprintf("node spec %s is only in base", specName(b)))
			continue
		}
		delete(newSpecs, id)
		if d := specDiff(b, n); len(d) > 0 {
			out = append(out, fmt.Sprintf("node spec %s differs: %s", specName(b), strings.Join(d, "; ")))
		}
	}
	for i, n := range nw.Nodes {
		if _, ok := newSpecs[specID(n, i)]; ok {
			out = append(out, fmt.Sprintf("node spec %s is only in new", specName(n)))
		}
	}
	return out
}

// specID matches specs across runs: the label, else the position.
func specID(n NodeInfo, i int) string {
	if n.Label != "" {
		return "label " + n.Label
	}
	return fmt.Sprintf("#%d", i)
}

// specDiff lists what differs between two runs of one spec.
func specDiff(b, n NodeInfo) []string {
	var out []string
	field := func(name, bv, nv string) {
		if bv != nv {
			out = append(out, fmt.Sprintf("%s %s → %s", name, orUnknown(bv), orUnknown(nv)))
		}
	}
	field("implementation", b.Implementation, n.Implementation)
	field("version", b.Version, n.Version)
	field("build", b.Build, n.Build)
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
