package progress

import (
	"bytes"
	"strings"
	"testing"
)

func TestLinesIterationOfUnknownTotal(t *testing.T) {
	tests := []struct {
		i, n int
		want string
	}{{3, 10, "measure 3/10:"}, {3, 0, "measure 3:"}}
	for _, tt := range tests {
		var b bytes.Buffer
		l := &lines{w: &b}
		l.Iteration(Iteration{Phase: "measure", Index: tt.i, Of: tt.n, OK: 5, SecPerOp: 0.1, PaymentsPerSec: 50})
		if !strings.Contains(b.String(), tt.want) {
			t.Errorf("i=%d n=%d: %q, want containing %q", tt.i, tt.n, b.String(), tt.want)
		}
	}
}
