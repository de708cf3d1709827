package scenario

import (
	"fmt"
	"strings"
)

// ParamRow is one known param as the reference gives it: docs/scenarios.md's
// Params table is ParamsMarkdown's output (a test keeps them equal), and
// `lnbench params` prints the same rows.
type ParamRow struct {
	Name, Default, Values, Doc, See string
}

// ParamRows are the rows of Known, in its order.
func ParamRows() []ParamRow {
	rows := make([]ParamRow, 0, len(Known))
	for _, p := range Known {
		r := ParamRow{Name: p.Name, Default: p.Unset, Values: p.Values, Doc: p.Doc, See: p.See}
		switch {
		case p.Default != "" && p.Choices != nil:
			r.Default = "`" + p.Default + "`"
		case p.Default != "":
			r.Default = p.Default
		case r.Default == "":
			r.Default = "—" // the topology builder decides
		}
		switch {
		case p.Choices != nil:
			r.Values = "`" + strings.Join(p.Choices, "`, `") + "`"
		case p.Text == nil:
			r.Values = fmt.Sprintf("≥ %d", p.Min)
		}
		switch {
		case p.Topology:
			r.Doc = "topology: " + r.Doc
		case p.Network:
			r.Doc = "network: " + r.Doc
		}
		rows = append(rows, r)
	}
	return rows
}

// ParamsMarkdown is the Params table of docs/scenarios.md.
func ParamsMarkdown() string {
	var b strings.Builder
	b.WriteString("| param | default | values | what it does |\n|---|---|---|---|\n")
	for _, r := range ParamRows() {
		doc := r.Doc
		if r.See != "" {
			doc += " (" + r.See + ")"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", r.Name, r.Default, r.Values, doc)
	}
	return b.String()
}
