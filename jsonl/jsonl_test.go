package jsonl

import (
	"path/filepath"
	"strings"
	"testing"
)

type v struct {
	A int `json:"a"`
}

func TestRead(t *testing.T) {
	got, err := Read[v](strings.NewReader("{\"a\":1}\n\n{\"a\":2}\n{\"a\":"), "x.jsonl")
	if err != nil || len(got) != 2 || got[1].A != 2 {
		t.Errorf("got %v, %v; want 2 values, the torn last line dropped", got, err)
	}
	if _, err := Read[v](strings.NewReader("{\"a\":1}\nnope\n{\"a\":2}\n"), "x.jsonl"); err == nil || !strings.Contains(err.Error(), "x.jsonl line 2") {
		t.Errorf("err = %v, want line 2 named", err)
	}
	if got, err := Load[v](filepath.Join(t.TempDir(), "none.jsonl"), "none.jsonl"); got != nil || err != nil {
		t.Errorf("missing file: %v, %v", got, err)
	}
}
