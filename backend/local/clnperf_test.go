package local

import (
	"context"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/sampler"
)

// TestPerfEndpointFollowsTheNode: the endpoint profiles the node's current
// process, follows a restart, and says in one line when it is gone.
func TestPerfEndpointFollowsTheNode(t *testing.T) {
	if _, err := exec.LookPath("perf"); err != nil {
		t.Skip("no perf")
	}
	b, err := New(Options{WorkDir: t.TempDir(), Pprof: true})
	if err != nil {
		t.Fatal(err)
	}
	startSleeper(t, b, "carol")
	host, err := b.servePerf("carol")
	if err != nil {
		t.Fatal(err)
	}
	target := sampler.Target{Actor: "carol", URL: "http://" + host}
	fetch := func() error {
		_, err := sampler.Fetch(context.Background(), http.DefaultClient, target, time.Second)
		return err
	}
	if err := fetch(); err != nil {
		if strings.Contains(err.Error(), "permission denied") {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	if _, err := b.Restart(context.Background(), "carol"); err != nil {
		t.Fatal(err)
	}
	if err := fetch(); err != nil {
		t.Errorf("after a restart: %v", err)
	}
	b.StopNode(context.Background(), "carol")
	if err := fetch(); err == nil || !strings.Contains(err.Error(), "HTTP 503: perfprof: node carol is not running") {
		t.Errorf("stopped node: %v", err)
	}
	b.Teardown(context.Background())
	if err := fetch(); err == nil {
		t.Error("the endpoint still answers after Teardown")
	}
}
