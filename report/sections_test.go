package report

import (
	"bytes"
	"html/template"
	"slices"
	"strings"
	"testing"

	"github.com/lnbench/lnbench/record"
	"github.com/lnbench/lnbench/recovery"
	"github.com/lnbench/lnbench/scenario"
)

// fixtureEverySection is a report with something for every section: two
// node specs with a baseline (verdicts, launches), and the faults,
// resources, cost curve, routes and forwards of the other fixtures, plus
// a sweep, placements, a warning and a harness profile. Its parts belong
// to different runs: only the rendering is under test.
func fixtureEverySection() Report {
	r := fixtureSpecReport()
	_, recs, fs := faultFixture()
	r.Faults = recovery.Analyze(recs, fs, recovery.Default)
	res := fixtureResourceReport()
	r.Resources, r.SamplingOverhead = res.Resources, res.SamplingOverhead
	scale := fixtureScaleReport()
	r.CostCurves, r.Costs, r.Forwards, r.Routes = scale.CostCurves, scale.Costs, scale.Forwards, scale.Routes
	r.Scenario.Sweep = &scenario.Sweep{Param: "Concurrency", MaxP99Ms: 1000, MaxErrorRate: 0.05}
	r.Placement = []record.Placement{{Network: "launch1", Service: "alice", Engine: "engine-1"}}
	r.Warnings = append(r.Warnings, "a run's warning")
	r.HarnessProfile = "harness.cpu.pprof"
	return r
}

// TestFixtureHasEverySection keeps the fixture complete: a section builder
// added without something in the fixture for it fails here, so the HTML
// test below covers it too.
func TestFixtureHasEverySection(t *testing.T) {
	r := fixtureEverySection()
	for i, build := range sectionBuilders {
		if s := build(r); len(s.Blocks) == 0 {
			t.Errorf("the fixture has nothing for sectionBuilders[%d] (%q)", i, s.Title)
		}
	}
}

// TestHTMLCarriesEverySection renders the fixture as markdown and HTML and
// checks that every markdown section, its subsections, lists, table
// headers and paragraphs are on the page.
func TestHTMLCarriesEverySection(t *testing.T) {
	r := fixtureEverySection()
	var md, page bytes.Buffer
	if err := Markdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if err := HTML(&page, r, nil); err != nil {
		t.Fatal(err)
	}
	html := page.String()
	var titles []string
	for _, s := range Sections(r) {
		if s.Title == "" {
			continue
		}
		titles = append(titles, s.Title)
		if !strings.Contains(md.String(), "\n## "+s.Title+"\n") {
			t.Errorf("markdown lacks section %q", s.Title)
		}
		want := []string{"<h2>" + escapeHTML(t, s.Title) + "</h2>"}
		for _, b := range s.Blocks {
			switch {
			case b.Heading != "":
				want = append(want, "<h3>"+escapeHTML(t, b.Heading)+"</h3>")
			case b.Table != nil:
				want = append(want, "<th>"+escapeHTML(t, b.Table.Header[len(b.Table.Header)-1])+"</th>")
			case b.Bullets != nil:
				for _, l := range b.Bullets {
					want = append(want, "<li>"+escapeHTML(t, l)+"</li>")
				}
			case b.Text != "":
				want = append(want, "<p>"+escapeHTML(t, b.Text)+"</p>")
			}
		}
		for _, w := range want {
			if !strings.Contains(html, w) {
				t.Errorf("HTML section %q lacks %s", s.Title, w)
			}
		}
	}
	// Every "## " of the markdown is one of those sections.
	for _, l := range strings.Split(md.String(), "\n") {
		if title, ok := strings.CutPrefix(l, "## "); ok && !slices.Contains(titles, title) {
			t.Errorf("markdown section %q is not in Sections", title)
		}
	}
	if !strings.Contains(html, "<h2>Cost curve</h2>") || !strings.Contains(html, "<h2>Forwarded HTLCs (intermediaries)</h2>") {
		t.Error("the sections the page used to lack are still missing")
	}
}

func escapeHTML(t *testing.T, s string) string {
	t.Helper()
	var b strings.Builder
	if err := template.Must(template.New("").Parse("{{.}}")).Execute(&b, s); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
