package result

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

func TestWriterReadRoundTripAndTornLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "payments.jsonl")
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Unix(1_700_000_000, 123)
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			w.Write(Record{Case: "c", Phase: Measure, Seq: i, Start: t0, End: t0.Add(time.Duration(i) * time.Millisecond), Status: Succeeded})
		}(i)
	}
	wg.Wait()
	// No Close: what a killed harness leaves must already be on disk,
	// including a torn last line from a write cut short.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"case":"c","phase":"mea`)
	f.Close()
	recs, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 50 {
		t.Fatalf("%d records read", len(recs))
	}
	seen := map[int]bool{}
	for _, r := range recs {
		seen[r.Seq] = true
		if !r.Start.Equal(t0) || r.Latency() != time.Duration(r.Seq)*time.Millisecond {
			t.Fatalf("record changed in the round trip: %+v", r)
		}
	}
	if len(seen) != 50 {
		t.Fatalf("%d distinct records", len(seen))
	}
}

func TestReadRejectsCorruptMiddle(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.jsonl")
	os.WriteFile(path, []byte("{\"case\":\"a\"}\nnot json\n{\"case\":\"b\"}\n"), 0o644)
	if _, err := ReadFile(path); err == nil {
		t.Fatal("a corrupt line in the middle was accepted")
	}
}
