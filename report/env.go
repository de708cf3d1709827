package report

import (
	"fmt"
	"strings"

	"github.com/lnbench/lnbench/record"
)

// specLines describe one node spec in the environment block: what was
// built from what (release or source tree with commit and dirty flag),
// its build key, toolchain, tags, PGO profile, config profile and image,
// then its flags on their own line. Runs written before specs had labels
// keep their one line.
func specLines(n record.NodeInfo) []string {
	flags := strings.Join(n.Flags, " ")
	if n.Label == "" {
		return []string{fmt.Sprintf("Node: %s %s, flags: %s", n.Implementation, n.Version, flags)}
	}
	head := "Node " + n.Label
	if n.Baseline {
		head += " (baseline)"
	}
	parts := []string{n.Implementation + " " + n.Version}
	if n.Source != "" {
		src := "source " + n.Source
		if n.Revision != "" {
			src += fmt.Sprintf(" at %s = commit %s %q (committed content)", n.Revision, short(n.Commit), n.Subject)
		} else if n.Commit != "" {
			src += " @ " + short(n.Commit)
		}
		if n.Dirty {
			src += " (dirty: uncommitted edits)"
		}
		parts = append(parts, src)
	}
	add := func(name, v string) {
		if v != "" {
			parts = append(parts, name+" "+v)
		}
	}
	add("version", n.NodeVersion)
	add("build", n.Build)
	add("key", short(n.Key))
	add("Go", strings.TrimPrefix(n.GoVersion, "go"))
	add("compiler", n.Compiler)
	add("build options", n.BuildOptions)
	add("tags", strings.Join(n.Tags, ","))
	add("PGO profile", short(n.PGOHash))
	add("profile", n.Profile)
	add("image", n.Image)
	add("on", strings.Join(n.Nodes, ","))
	lines := []string{head + ": " + strings.Join(parts, ", "), "  flags: " + flags}
	if len(n.Env) > 0 {
		lines = append(lines, "  env: "+strings.Join(n.Env, " "))
	}
	return lines
}

// short cuts a hash to 12 characters, enough to tell builds apart.
func short(hash string) string {
	if len(hash) > 12 {
		return hash[:12]
	}
	return hash
}

// specName is "implementation label" (the version for runs written before
// specs had labels): "lnd v0.21.0-beta", "lnd patched".
func specName(n record.NodeInfo) string {
	if n.Label != "" {
		return n.Implementation + " " + n.Label
	}
	return n.Implementation + " " + n.Version
}

// rowSpecName is specName of the spec a case ran.
func rowSpecName(r Report, c Row) string {
	for _, n := range r.Nodes {
		if n.Label == c.Node {
			return specName(n)
		}
	}
	impl := r.Scenario.Node.Implementation
	if len(r.Nodes) > 0 {
		impl = r.Nodes[0].Implementation
	}
	return impl + " " + c.Node
}
