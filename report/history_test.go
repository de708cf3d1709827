package report

import (
	"encoding/csv"
	"os"
	"path/filepath"
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
