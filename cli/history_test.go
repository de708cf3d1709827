package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/record"
	"github.com/lnbench/lnbench/scenario"
)

// TestHistoryCommand: three runs of four Concurrency values, without R on
// PATH: the history lists one series per case in the natural order of the
// param, each named by its design, and writes its files; a level outside
// (0, 1) is refused.
func TestHistoryCommand(t *testing.T) {
	root := t.TempDir()
	concs := []string{"10", "2", "11", "1"}
	for i := 0; i < 3; i++ {
		dir := makeRunFor(t, concs, scaled(1+0.01*float64(i))...)
		s := scenario.Default()
		s.Params = []scenario.Param{{Name: "Concurrency", Values: concs}, {Name: "TotalPayments", Values: []string{"2"}}}
		started := time.Date(2026, 11, 1+i, 12, 0, 0, 0, time.UTC)
		if err := record.Write(dir, record.Manifest{RunID: "run" + string(rune('a'+i)), Started: started, Finished: started.Add(time.Minute), Scenario: s}); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(dir, filepath.Join(root, "run"+string(rune('a'+i)))); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", t.TempDir())
	var out, errb bytes.Buffer
	if err := Run(context.Background(), &out, &errb, []string{"history", root}); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	headings := regexp.MustCompile(`(?m)^## (\d+)\. \S+ Concurrency=(\d+)/TotalPayments=2 · .* · single spec, 1 network at a time · machine \w+$`).FindAllStringSubmatch(out.String(), -1)
	var order []string
	for _, h := range headings {
		order = append(order, h[1]+":"+h[2])
	}
	if got := strings.Join(order, " "); got != "1:1 2:2 3:10 4:11" {
		t.Errorf("series %q, want Concurrency 1, 2, 10, 11 in order:\n%s", got, out.String())
	}
	for _, f := range []string{"history.md", "history.csv", "history.html", "history.R"} {
		if _, err := os.Stat(filepath.Join(root, "history", f)); err != nil {
			t.Error(err)
		}
	}
	if err := Run(context.Background(), &out, &errb, []string{"history", root, "--alpha", "0"}); err == nil || !strings.Contains(err.Error(), "--alpha 0") {
		t.Errorf("--alpha 0: %v", err)
	}
}
