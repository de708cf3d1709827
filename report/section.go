package report

// Section is one titled part of the summary, built once from the Report
// and rendered by every writer (markdown, terminal text, HTML), so a part
// added here appears in each of them.
type Section struct {
	Title  string // "" for the untitled parts: the head under the report's name, the footer
	Blocks []Block
}

// Block is one piece of a section; exactly one of its content fields is set.
type Block struct {
	Heading  string    // a subsection's title (### in markdown)
	Text     string    // a paragraph; a line break stays a line break in markdown
	Table    *Table    // its Legend is not drawn: a Legend block places it
	Bullets  []string  // a list
	Pre      []string  // preformatted lines: verbatim text, charts drawn in characters
	Legend   []string  // what a table's columns mean, in small print
	Timeline *Timeline // a throughput chart: a sparkline, or SVG on a page without PNG plots
	Figures  []Plot    // PNG plots: only the HTML page can show them

	// PageOnly marks detail too long for the summary (every iteration of
	// every case): only the HTML page, which has room, shows it.
	PageOnly bool
}

// Timeline is a case's successful payments per second with its faults'
// spans shaded, drawn by each writer in its own medium.
type Timeline struct {
	PerSecond []int
	Faults    []faultSpan
}

// sectionBuilders make the summary's sections in the order every writer
// shows them; a builder returns no blocks when the run has nothing for it.
var sectionBuilders = []func(Report) Section{
	headSection,
	verdictsSection,
	latencySection,
	faultsSection,
	detailsSection,
	resourcesSection,
	overheadSection,
	sweepSection,
	routesSection,
	forwardsSection,
	enginesSection,
	setupSection,
	teardownSection,
	costSection,
	warningsSection,
	footerSection,
}

// Sections are the summary's parts that have something to show.
func Sections(r Report) []Section {
	var out []Section
	for _, build := range sectionBuilders {
		if s := build(r); len(s.Blocks) > 0 {
			out = append(out, s)
		}
	}
	return out
}

// Titles of sections that a writer looks for by name.
const (
	latencyTitle  = "Payment latency (ms)"
	verdictsTitle = "Verdicts against the baseline"
)

func tableBlock(t Table) Block { return Block{Table: &t} }
