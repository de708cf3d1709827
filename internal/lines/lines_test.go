package lines

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFirstAndLast(t *testing.T) {
	if got := First("\n  boom: no such thing\nat line 2\n"); got != "boom: no such thing" {
		t.Errorf("First = %q", got)
	}
	if got := Last("a\nb\nc\nd\n", 2); got != "c\nd" {
		t.Errorf("Last = %q", got)
	}
	if got := Last("a\n", 5); got != "a" {
		t.Errorf("Last of a short text = %q", got)
	}
}

func TestLogTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "node.log")
	if got := LogTail(path, 2); got != "(no log)" {
		t.Errorf("LogTail of a missing file = %q", got)
	}
	if err := os.WriteFile(path, []byte("a\nb\nc\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := LogTail(path, 2); got != "  b\n  c" {
		t.Errorf("LogTail = %q", got)
	}
	if got := Indent("x"); got != "  x" {
		t.Errorf("Indent = %q", got)
	}
}
