package lines

import "testing"

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
