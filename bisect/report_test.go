package bisect

import (
	"bytes"
	"context"
	"encoding/csv"
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
