package report

import (
	"fmt"
	"io"
	"strings"
)

// Markdown writes the GitHub-flavoured summary: the report's name, then
// every section of Sections.
func Markdown(w io.Writer, r Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n", r.Scenario.Name)
	for _, s := range Sections(r) {
		writeMarkdownSection(&b, s)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeMarkdownSection writes a section's title and each block after a
// blank line; page-only blocks and figures have no place in a summary.
func writeMarkdownSection(b *strings.Builder, s Section) {
	if s.Title != "" {
		fmt.Fprintf(b, "\n## %s\n", s.Title)
	}
	for _, bl := range s.Blocks {
		if bl.PageOnly || bl.Figures != nil {
			continue
		}
		b.WriteString("\n")
		switch {
		case bl.Heading != "":
			fmt.Fprintf(b, "### %s\n", bl.Heading)
		case bl.Table != nil:
			writeMarkdownTable(b, *bl.Table)
		case bl.Bullets != nil:
			for _, l := range bl.Bullets {
				fmt.Fprintf(b, "- %s\n", l)
			}
		case bl.Pre != nil:
			writeFenced(b, bl.Pre)
		case bl.Legend != nil:
			// Indented, so markdown shows it as preformatted text.
			for _, l := range bl.Legend {
				fmt.Fprintf(b, "    %s\n", l)
			}
		case bl.Timeline != nil:
			writeFenced(b, bl.Timeline.sparkline())
		default:
			b.WriteString(bl.Text + "\n")
		}
	}
}

func writeFenced(b *strings.Builder, lines []string) {
	fmt.Fprintf(b, "```\n%s\n```\n", strings.Join(lines, "\n"))
}

// sparkline draws the timeline in characters, 60 seconds a row.
func (t Timeline) sparkline() []string { return SparklineFaults(t.PerSecond, 60, t.Faults) }

// writeMarkdownTable left-aligns the first column (the names) and
// right-aligns the figures.
func writeMarkdownTable(b *strings.Builder, t Table) {
	b.WriteString("| " + strings.Join(t.Header, " | ") + " |\n|")
	for i := range t.Header {
		if i == 0 {
			b.WriteString("---|")
		} else {
			b.WriteString("---:|")
		}
	}
	b.WriteString("\n")
	for _, r := range t.Rows {
		b.WriteString("| " + strings.Join(r, " | ") + " |\n")
	}
}
