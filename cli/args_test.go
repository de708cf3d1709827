package cli

import (
	"slices"
	"testing"
)

func TestArgsByTheNameLnbenchIsReachedAs(t *testing.T) {
	for _, c := range []struct {
		argv    []string
		plugins bool // lightningd's mark on its plugins' environment
		want    []string
		tool    bool
	}{
		{[]string{"/opt/lnbench/bin/lnbench", "run", "--quick"}, false, []string{"run", "--quick"}, false},
		{[]string{"/opt/lnbench/bin/lnbench"}, false, []string{}, false},
		{[]string{"/data/bin/bitcoin-cli", "-datadir=/btcd", "getblockcount"}, true, []string{"bitcoin-cli", "-datadir=/btcd", "getblockcount"}, true},
		{[]string{"/usr/local/bin/lnbench-cln-plugin"}, true, []string{"cln-plugin"}, true},
		// lightningd resolved the symlink: the name is lnbench's own.
		{[]string{"/opt/lnbench/bin/lnbench"}, true, []string{"cln-plugin"}, true},
		{[]string{"/opt/lnbench/bin/lnbench", "--developer"}, true, []string{"cln-plugin"}, true},
		{[]string{"/usr/local/bin/lnbench-cln-plugin", "--developer"}, true, []string{"cln-plugin"}, true},
		{[]string{"/opt/lnbench/bin/lnbench", "run"}, true, []string{"run"}, false},
	} {
		mark := ""
		if c.plugins {
			mark = "1"
		}
		t.Setenv("LIGHTNINGD_PLUGIN", mark)
		if got := Args(c.argv); !slices.Equal(got, c.want) || ReachedAsTool(c.argv) != c.tool {
			t.Errorf("%v (plugin env %v): args %v tool %v, want %v %v", c.argv, c.plugins, got, ReachedAsTool(c.argv), c.want, c.tool)
		}
	}
}
