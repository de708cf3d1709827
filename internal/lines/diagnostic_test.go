package lines

import "testing"

func TestFirstDiagnostic(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"go build -o out ./cmd/lnd: exit status 1\n# github.com/lightningnetwork/lnd\n./lnd.go:1201:9: undefined: lnbenchUndefined\n", "./lnd.go:1201:9: undefined: lnbenchUndefined"},
		{"configure.ac:39: installing 'tools/build-aux/ar-lib'\nlightningd/pay.c:12:1: warning: unused\nmake: entering\nlightningd/pay.c:1101:2: error: expected ';' before 'ret'\nmake: *** [Makefile:300: lightningd/pay.o] Error 1", "lightningd/pay.c:1101:2: error: expected ';' before 'ret'"},
		{"\n  go: module not found\nmore", ""},
		{"", ""},
	} {
		if got, ok := FirstDiagnostic(c.in); got != c.want || ok != (c.want != "") {
			t.Errorf("FirstDiagnostic(%q) = %q, %v; want %q", c.in, got, ok, c.want)
		}
	}
}
