package report

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// HistoryFile is the file AppendHistory grows in its folder.
const HistoryFile = "history.csv"

// historyHeader is fixed whatever the scenario's params, so one file can
// hold every run: the params are in Case (the id "Concurrency=20/…").
var historyHeader = []string{"run_id", "started", "scenario", "method", "case", "node", "backend",
	"iterations", "mean_s", "error_s", "stddev_s", "median_s", "cv", "payments_per_sec",
	"payments", "failed", "latency_p50_ms", "latency_p99_ms"}

// AppendHistory appends one row per case of r to dir/history.csv, writing
// the header when the file is new, to follow a benchmark across runs
// (commits, versions). Calling it twice for a run appends twice.
func AppendHistory(dir string, r Report) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("history: %v", err)
	}
	path := filepath.Join(dir, HistoryFile)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("history: %v", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("history: %v", err)
	}
	cw := csv.NewWriter(f)
	if st.Size() == 0 {
		_ = cw.Write(historyHeader)
	}
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 10, 64) }
	for _, c := range r.Cases {
		t := c.Time
		_ = cw.Write([]string{r.RunID, r.Started.UTC().Format(time.RFC3339), r.Scenario.Name, c.Method, c.ID,
			rowSpecName(r, c), r.Backend, strconv.Itoa(t.N), g(t.Mean), g(t.Error), g(t.StdDev), g(t.Median),
			g(c.Spread.CV), g(c.PaymentsPerSec), strconv.Itoa(c.Payments), strconv.Itoa(c.Failed),
			g(c.Latency.P50), g(c.Latency.P99)})
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		f.Close()
		return fmt.Errorf("history: %v", err)
	}
	return f.Close()
}
