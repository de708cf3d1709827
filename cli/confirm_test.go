package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestConfirmLong(t *testing.T) {
	for _, tc := range []struct {
		est  time.Duration
		yes  bool
		want string // "" = may start
	}{
		{LongRun, false, ""},
		{10 * time.Minute, false, ""},
		{3 * time.Hour, true, ""},
		{3 * time.Hour, false, "estimated ~3h0m0s, above 1h0m0s: pass --yes"},
	} {
		// Not a terminal: no prompt, a refusal naming the fix.
		err := confirmLong(tc.est, tc.yes, strings.NewReader("y\n"), &bytes.Buffer{})
		if got := errString(err); (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("est %v yes %v: %q, want %q", tc.est, tc.yes, got, tc.want)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
