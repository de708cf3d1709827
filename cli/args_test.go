package cli

import (
	"slices"
	"testing"
)

func TestArgsByTheNameLnbenchIsReachedAs(t *testing.T) {
	for _, c := range []struct {
		argv []string
		want []string
		tool bool
	}{
		{[]string{"/opt/lnbench/bin/lnbench", "run", "--quick"}, []string{"run", "--quick"}, false},
		{[]string{"/data/bin/bitcoin-cli", "-datadir=/btcd", "getblockcount"}, []string{"bitcoin-cli", "-datadir=/btcd", "getblockcount"}, true},
		{[]string{"/usr/local/bin/lnbench-cln-plugin"}, []string{"cln-plugin"}, true},
	} {
		if got := Args(c.argv); !slices.Equal(got, c.want) || ReachedAsTool(c.argv[0]) != c.tool {
			t.Errorf("%v: args %v tool %v, want %v %v", c.argv, got, ReachedAsTool(c.argv[0]), c.want, c.tool)
		}
	}
}
