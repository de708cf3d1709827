package bisect

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestReportNamesTheCulpritAndShowsTheStep(t *testing.T) {
	revs, times := history(6, map[int]float64{4: 0.15})
	res, err := Search(context.Background(), revs, newFakeLab(times), &Journal{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var log bytes.Buffer
	r := Report{Result: res, Clone: "/src/lnd", Spec: "lnd@src:/src/lnd", Scenario: "AlicePaysBob", Case: "Concurrency=20"}
	if err := WriteAll(context.Background(), dir, r, &log); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(dir, MarkdownFile))
	for _, want := range []string{"First bad commit: c4 commit c4", "the last good revision is `c3 commit c3`", "| 6 | c6 |", "bad end"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("bisect.md lacks %q:\n%s", want, md)
		}
	}
	f, _ := os.Open(filepath.Join(dir, CSVFile))
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(rows) != 1+2+len(res.Steps) {
		t.Fatalf("bisect.csv: %d rows, %v", len(rows), err)
	}
	// The ratio to good steps up at c4: below 1.05 before, above 1.1 from it.
	for _, row := range rows[1:] {
		pos, ratio := row[0], row[6]
		before := pos < "4"
		if (before && ratio > "1.05") || (!before && ratio < "1.1") {
			t.Errorf("position %s: ratio to good %s", pos, ratio)
		}
	}
	if _, err := exec.LookPath("Rscript"); err == nil {
		if _, err := os.Stat(filepath.Join(dir, PlotFile)); err != nil {
			t.Errorf("Rscript is here and drew no plot: %v (%s)", err, log.String())
		}
	}
}

func TestReportSaysNoCommitWithoutADifference(t *testing.T) {
	revs, times := history(6, nil)
	res, _ := Search(context.Background(), revs, newFakeLab(times), &Journal{}, Options{})
	var b bytes.Buffer
	if err := WriteText(&b, Report{Result: res}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "No commit named: no difference larger than") || strings.Contains(b.String(), "First bad commit") {
		t.Fatalf("%s", b.String())
	}
}

// Every interval bisect.md, the CSV and the JSON show is labelled at the
// level its runs tested at: 0.05 split over until-known's looks (5 looks
// from 4 to 12 launches: 99%), 95% with one look; with the step margin
// and the error rate over the steps stated.
func TestReportLabelsEveryIntervalAtItsLevel(t *testing.T) {
	for _, tc := range []struct {
		name       string
		start, cap int
		ci, alpha  string
	}{
		{"until known, 5 looks", 4, 12, "99% CI", "α = 0.01 per look (99% CI): 0.05 split over until-known's 5 looks (Bonferroni)"},
		{"one look", 6, 6, "95% CI", "α = 0.05 (95% CI), one look"},
		{"3 looks", 4, 8, "98.33% CI", "α = 0.0167 per look (98.33% CI): 0.05 split over until-known's 3 looks"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			revs, times := history(6, map[int]float64{4: 0.15})
			lab := newFakeLab(times)
			lab.start, lab.cap = tc.start, tc.cap
			res, err := Search(context.Background(), revs, lab, &Journal{}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			files, err := render(Report{Result: res, Scenario: "S", Case: "Concurrency=20"})
			if err != nil {
				t.Fatal(err)
			}
			text := string(files[MarkdownFile])
			steps := len(res.Steps)
			for _, want := range []string{
				"with its " + tc.ci + ":",
				"| to good | " + tc.ci + " | verdict |",
				"Good against bad: bad is slower than good by 15.0% (" + tc.ci + " 1.",
				"The ends run tested at " + tc.alpha,
				fmt.Sprintf("Over the ends and the %d decided step(s) taken, the chance that any of these verdicts is wrong is at most %d × 0.05 = %.3g", steps, steps+1, 0.05*float64(steps+1)),
				"bad/good 1.150 gives ±7.2%",
				"| ±7.2% |",
			} {
				if !strings.Contains(text, want) {
					t.Errorf("bisect.md lacks %q:\n%s", want, text)
				}
			}
			if other := map[string]string{"99% CI": "95% CI", "95% CI": "99% CI", "98.33% CI": "95% CI"}[tc.ci]; strings.Contains(text, other) || strings.Contains(text, "95% interval") {
				t.Errorf("bisect.md names %s or a 95%% interval though its runs tested at %s:\n%s", other, tc.ci, text)
			}
			rows, err := csv.NewReader(bytes.NewReader(files[CSVFile])).ReadAll()
			if err != nil || len(rows) < 3 {
				t.Fatalf("bisect.csv: %v %v", rows, err)
			}
			col := map[string]int{}
			for i, name := range rows[0] {
				col[name] = i
			}
			for _, name := range []string{"ratio_to_good", "ci_low", "ci_high", "ci", "margin"} {
				if _, ok := col[name]; !ok {
					t.Fatalf("bisect.csv has no column %s: %v", name, rows[0])
				}
			}
			for _, row := range rows[1:] {
				if row[col["ci"]] != tc.ci {
					t.Errorf("bisect.csv row %v: ci %q, want %q", row, row[col["ci"]], tc.ci)
				}
			}
			js := files[JSONFile]
			var back struct {
				Evidence []Row `json:"evidence"`
				Steps    []Step
			}
			if err := json.Unmarshal(js, &back); err != nil {
				t.Fatal(err)
			}
			for _, row := range back.Evidence {
				if row.CI != tc.ci {
					t.Errorf("bisect.json row %d: ci %q, want %q", row.Position, row.CI, tc.ci)
				}
			}
			for _, st := range back.Steps {
				if st.VsLo.CI() != tc.ci || st.VsHi.CI() != tc.ci || st.Margin == 0 {
					t.Errorf("bisect.json step %s: comparisons at %s and %s, margin %g", st.Subject.ID, st.VsLo.CI(), st.VsHi.CI(), st.Margin)
				}
			}
		})
	}
}

// Runs at different levels (or an older journal without them) label each
// interval in its cell, the combined one at the lower confidence; steps
// placed at the cap are kept out of the error bound and said to be.
func TestReportLabelsMixedLevelsPerInterval(t *testing.T) {
	revs, times := history(6, map[int]float64{4: 0.15})
	lab := newFakeLab(times)
	lab.unknown["c3"] = true
	res, err := Search(context.Background(), revs, lab, &Journal{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	last := len(res.Steps) - 1
	res.Steps[last].VsLo.Alpha, res.Steps[last].VsLo.Looks = 0.02, 1 // a step run at one look, at 0.02
	var b bytes.Buffer
	if err := WriteText(&b, Report{Result: res}); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	rows := Evidence(res)
	var stepRow Row
	for _, row := range rows {
		if row.Step == last+1 {
			stepRow = row
		}
	}
	if stepRow.CI != "98% CI" {
		t.Errorf("a step at 98%% through an end at 99%%: labelled %q, want the lower confidence, 98%% CI", stepRow.CI)
	}
	for _, want := range []string{"| to good | interval | verdict |", "| 99% CI 1.", "| 98% CI ", "each labelled at its level",
		"tested the same way but: c4 at α = 0.02 (98% CI), one look",
		"Over the ends and the 1 decided step(s) taken, the chance that any of these verdicts is wrong is at most 0.07, the sum of the runs' α",
		"The 1 step(s) placed at the cap by the nearer ratio (not yet known) have no such bound"} {
		if !strings.Contains(text, want) {
			t.Errorf("bisect.md lacks %q:\n%s", want, text)
		}
	}
	// A level not recorded is said to be, never guessed.
	res.Ends.BadVsGood.Alpha = 0
	b.Reset()
	_ = WriteText(&b, Report{Result: res})
	if !strings.Contains(b.String(), "CI (level not recorded)") || !strings.Contains(b.String(), "some levels were not recorded") {
		t.Errorf("unrecorded level:\n%s", b.String())
	}
}

// The cost verdict the lab read from each run stands beside the time
// ratio: a "cost vs good" column in bisect.md (against the step's good end,
// named, when that is not good), vs_lo_cost and vs_hi_cost in bisect.csv,
// and each comparison's cost in bisect.json; it survives the step's
// re-reading at its margin. Without any, the table says so and has no column.
func TestReportShowsTheCostBesideTheRatio(t *testing.T) {
	revs, times := history(6, map[int]float64{4: 0.15})
	lab := newFakeLab(times)
	lab.cost = func(subject, against string) string {
		if times[subject] > times[against] {
			return "bob +2.50 ms CPU per payment (1.36×, 99% CI 1.30–1.42), more; alice same"
		}
		return "alice, bob same [" + subject + " vs " + against + "]"
	}
	res, err := Search(context.Background(), revs, lab, &Journal{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var indirect *Step
	for i, s := range res.Steps {
		if s.Lo.ID != "c0" && indirect == nil {
			indirect = &res.Steps[i]
		}
	}
	if indirect == nil || len(res.Steps) < 2 {
		t.Fatalf("the search took no step against another good end than c0: %+v", res.Steps)
	}
	files, err := render(Report{Result: res, Scenario: "S", Case: "Concurrency=20"})
	if err != nil {
		t.Fatal(err)
	}
	md := string(files[MarkdownFile])
	bump := "bob +2.50 ms CPU per payment (1.36×, 99% CI 1.30–1.42), more; alice same"
	for _, want := range []string{
		"| to good | 99% CI | cost vs good | verdict |",
		"*Cost vs good* is the same run's cost verdict, which never places a revision",
		"| 6 | c6 | commit c6 | =1.150 | ",
		"| " + bump + " | bad end |",
		"| alice, bob same [c3 vs c0] | like good |",
		"| vs " + indirect.Lo.Short + ": " + indirect.VsLo.Cost + " | " + string(indirect.Class) + " |",
		"|---:|---|---|---:|---|---|---|---|---|---:|---:|---:|",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("bisect.md lacks %q:\n%s", want, md)
		}
	}
	// The good row has no cost of its own.
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "| 0 | c0 |") && !strings.Contains(line, "| =1.000 | 1.000–1.000 |  | good end |") {
			t.Errorf("good's row: %s", line)
		}
	}
	rows, err := csv.NewReader(bytes.NewReader(files[CSVFile])).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, name := range rows[0] {
		col[name] = i
	}
	if col["position"] != 0 || col["ratio_to_good"] != 6 || col["dir"] != 18 || col["vs_lo_cost"] != 19 || col["vs_hi_cost"] != 20 {
		t.Fatalf("bisect.csv columns moved: %v", rows[0])
	}
	seen := map[string][2]string{}
	for _, row := range rows[1:] {
		seen[row[col["short"]]] = [2]string{row[col["vs_lo_cost"]], row[col["vs_hi_cost"]]}
	}
	if seen["c6"][0] != bump || seen["c0"] != [2]string{} {
		t.Errorf("bisect.csv costs: c6 %q, c0 %q", seen["c6"], seen["c0"])
	}
	if got := seen[indirect.Subject.Short]; got[0] != indirect.VsLo.Cost || got[1] != indirect.VsHi.Cost || got[1] == "" {
		t.Errorf("bisect.csv %s: %q, want %q and %q", indirect.Subject.Short, got, indirect.VsLo.Cost, indirect.VsHi.Cost)
	}
	var back struct {
		Ends     Ends   `json:"ends"`
		Steps    []Step `json:"steps"`
		Evidence []Row  `json:"evidence"`
	}
	if err := json.Unmarshal(files[JSONFile], &back); err != nil {
		t.Fatal(err)
	}
	if back.Ends.BadVsGood.Cost != bump || !strings.Contains(string(files[JSONFile]), `"cost": "alice, bob same [c3 vs c0]"`) {
		t.Errorf("bisect.json ends cost %q:\n%s", back.Ends.BadVsGood.Cost, files[JSONFile])
	}
	for _, s := range back.Steps {
		if want := lab.cost(s.Subject.ID, s.Hi.ID); s.VsHi.Cost != want {
			t.Errorf("bisect.json step %s: vs_hi cost %q, want %q", s.Subject.ID, s.VsHi.Cost, want)
		}
	}

	// Without cost verdicts: no column, and a sentence why.
	lab.cost = nil
	res, _ = Search(context.Background(), revs, lab, &Journal{}, Options{})
	files, _ = render(Report{Result: res})
	md = string(files[MarkdownFile])
	if strings.Contains(md, "cost vs good") || !strings.Contains(md, "No cost verdicts: the runs sampled no resources") ||
		!strings.Contains(md, "| to good | 99% CI | verdict |") {
		t.Errorf("bisect.md without costs:\n%s", md)
	}
	// A step measured without (an older journal's) beside one with: "not measured".
	res.Ends.BadVsGood.Cost = bump
	var b bytes.Buffer
	_ = WriteText(&b, Report{Result: res})
	if !strings.Contains(b.String(), "| not measured | like good |") {
		t.Errorf("a step without a cost verdict:\n%s", b.String())
	}
}
