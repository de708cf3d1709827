package report

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAppendHistory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "hist") // created on demand
	r := fixtureReport()
	for range 2 {
		if err := AppendHistory(dir, r); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Open(filepath.Join(dir, HistoryFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	// One header, then 2 cases × 2 runs.
	if len(rows) != 5 || rows[0][0] != "run_id" || rows[1][0] == "run_id" || rows[3][0] == "run_id" {
		t.Fatalf("rows = %q", rows)
	}
	if rows[2][4] != "Concurrency=20/TotalPayments=4" || rows[2][5] != "lnd v0.21.0-beta" || rows[2][15] != "1" {
		t.Errorf("row = %q", rows[2])
	}
}

func TestHistoryAndMeasurementsNameSpecs(t *testing.T) {
	dir := t.TempDir()
	if err := AppendHistory(dir, fixtureSpecReport()); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, HistoryFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 5 || rows[3][4] != "Node=patched/Concurrency=10/TotalPayments=4" || rows[3][5] != "lnd patched" || rows[1][5] != "lnd v0.21.0-beta" {
		t.Errorf("rows = %q", rows)
	}
	var b bytes.Buffer
	if err := MeasurementsCSV(&b, fixtureSpecReport(), fixtureSpecRecords()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if !strings.HasSuffix(lines[0], ",hops,parts,attempts,node") || !strings.HasSuffix(lines[len(lines)-1], ",1,0,0,patched") || !strings.HasSuffix(lines[1], ",1,0,0,v0.21.0-beta") {
		t.Errorf("measurements: %q … %q", lines[:2], lines[len(lines)-1])
	}
}
