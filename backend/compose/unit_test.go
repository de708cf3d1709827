package compose

import (
	"strings"
	"testing"
)

func TestParsePort(t *testing.T) {
	if got, err := parsePort("127.0.0.1:49153\n", 10009); err != nil || got != "127.0.0.1:49153" {
		t.Fatalf("got %q, %v", got, err)
	}
	for out, want := range map[string]string{
		"0.0.0.0:49153\n[::]:49153\n": "beyond loopback",
		"":                            "not published",
		"garbage":                     "unexpected",
		"127.0.0.1:0":                 "bad host port",
	} {
		if _, err := parsePort(out, 10009); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: want %q, got %v", out, want, err)
		}
	}
}

func TestRunFilter(t *testing.T) {
	if got := runFilter(""); got != "label=lnbench.run" {
		t.Errorf("all runs: %q", got)
	}
	if got := runFilter("X-1"); got != "label=lnbench.run=X-1" {
		t.Errorf("one run: %q", got)
	}
	if got := strings.Join(filterArgs([]string{"a", "b"}), " "); got != "--filter a --filter b" {
		t.Errorf("filter args: %q", got)
	}
}

func TestNewNeedsImagesAndArtifacts(t *testing.T) {
	if _, err := New(t.Context(), Options{RunID: "x", WorkDir: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "artifacts") {
		t.Errorf("no artifacts folder: %v", err)
	}
}
