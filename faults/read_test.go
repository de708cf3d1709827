package faults

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestReadSkipsTornLastLine(t *testing.T) {
	in := `{"network":"n1","case":"C=1","iteration":2,"kind":"restart","target":"bob","spec":"restart bob at 10s","start":"2026-01-02T03:04:05Z","end":"2026-01-02T03:04:10Z","channels_active":"2026-01-02T03:04:12Z"}

{"network":"n1","case":"C=1","iteration":3,"kind":"delay","tar`
	got, err := Read(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Kind != Restart || got[0].End.Sub(got[0].Start) != 5*time.Second || got[0].ChannelsActive.IsZero() {
		t.Errorf("got %+v", got)
	}
}

func TestReadBadLineBeforeLast(t *testing.T) {
	in := "{bad\n" + `{"kind":"kill"}` + "\n"
	if _, err := Read(strings.NewReader(in)); err == nil || !strings.Contains(err.Error(), "faults.jsonl line 1") {
		t.Errorf("err = %v, want the line named", err)
	}
}

func TestLoadMissingIsNoFaults(t *testing.T) {
	got, err := Load(filepath.Join(t.TempDir(), FileName))
	if err != nil || got != nil {
		t.Errorf("got %v, %v", got, err)
	}
	p := filepath.Join(t.TempDir(), FileName)
	if err := os.WriteFile(p, []byte(`{"kind":"kill","target":"bob"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := Load(p); err != nil || len(got) != 1 || got[0].Target != "bob" {
		t.Errorf("got %v, %v", got, err)
	}
}
