package lab

import (
	"errors"
	"fmt"
	"testing"

	"github.com/lnbench/lnbench/nodebuild"
)

// A skipped revision says what the compiler said, through the CLN build's
// wrapping too, and the first line of any other error.
func TestBuildFailure(t *testing.T) {
	ce := &nodebuild.CommandError{Command: "make -j2", Dir: "/src", Err: errors.New("exit status 2"),
		Diagnostic: "lightningd/pay.c:1101:22: error: expected ';' before 'ret'"}
	for _, c := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("%w\nthe build log ends:\n…", ce), ce.Diagnostic},
		{&nodebuild.CommandError{Command: "go build", Dir: "/m", Err: errors.New("exit status 1")}, "go build in /m failed: exit status 1"},
		{errors.New("exporting: no such commit\nmore"), "exporting: no such commit"},
	} {
		if got := buildFailure(c.err); got != c.want {
			t.Errorf("buildFailure(%q) = %q, want %q", c.err, got, c.want)
		}
	}
}
