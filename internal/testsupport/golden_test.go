package testsupport

import (
	"strings"
	"testing"
)

func TestDiff(t *testing.T) {
	if d := Diff("a\nb\n", "a\nb\n"); d != "" {
		t.Errorf("equal texts: %q", d)
	}
	want := "1\n2\n3\n4\n5\n6\n7\n8\n9\n"
	got := "1\n2\n3\n4\nfive\n6\n7\n8\n9\n"
	d := Diff(want, got)
	for _, line := range []string{
		"first difference at line 5 (want 10 lines, got 10)",
		"    2  2",
		"    4  4",
		"-    5  5",
		"+    5  five",
		"    6  6",
		"    8  8",
	} {
		if !strings.Contains(d, line) {
			t.Errorf("diff lacks %q:\n%s", line, d)
		}
	}
	if strings.Contains(d, "    1  1") || strings.Contains(d, "    9  9") {
		t.Errorf("diff shows more than 3 lines of context:\n%s", d)
	}
	// A line only added, and a long run of changes, capped.
	if d := Diff("a\nc", "a\nb\nc"); !strings.Contains(d, "+    2  b") || strings.Contains(d, "-") {
		t.Errorf("insertion:\n%s", d)
	}
	long := strings.Repeat("x\n", 50)
	if d := Diff("", long); !strings.Contains(d, "… 30 more line(s)") {
		t.Errorf("long diff not capped:\n%s", d)
	}
}
