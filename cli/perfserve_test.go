package cli

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lnbench/lnbench/sampler"
)

func TestPerfserveRefusesAnUnclearTarget(t *testing.T) {
	for args, want := range map[string]string{
		"":                          "exactly one of --pid, --pidfile or --comm",
		"--pid 1 --comm lightningd": "exactly one of",
		"--pid 1073741824":          "--pid: process 1073741824 is not running",
		"--comm x --call-graph lbr": `call graph "lbr"`,
	} {
		var out, errb bytes.Buffer
		err := Run(context.Background(), &out, &errb, append([]string{"perfserve"}, strings.Fields(args)...))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("perfserve %s: %v, want %q", args, err, want)
		}
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
func (l *lockedBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// TestPerfserveServesAProfile runs the command against a sleeping process
// and fetches a profile through the sampler's client.
func TestPerfserveServesAProfile(t *testing.T) {
	if _, err := exec.LookPath("perf"); err != nil {
		t.Skip("no perf")
	}
	sleep := exec.Command("sleep", "30")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { sleep.Process.Kill(); sleep.Wait() }()
	ctx, cancel := context.WithCancel(context.Background())
	var errb lockedBuffer
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, io.Discard, &errb, []string{"perfserve", "--listen", "127.0.0.1:0", "--pid", strconv.Itoa(sleep.Process.Pid)})
	}()
	re := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+)/`)
	var url string
	for i := 0; i < 100 && url == ""; i++ {
		if m := re.FindStringSubmatch(errb.String()); m != nil {
			url = m[1]
		}
		time.Sleep(20 * time.Millisecond)
	}
	if url == "" {
		t.Fatalf("no address announced: %s", errb.String())
	}
	if resp, err := http.Get(url + "/healthz"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("healthz: %v %v", resp, err)
	}
	p, err := sampler.Fetch(ctx, http.DefaultClient, sampler.Target{Actor: "x", URL: url}, time.Second)
	if err != nil {
		if strings.Contains(err.Error(), "permission denied") {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	if d := time.Duration(p.DurationNanos); d < 900*time.Millisecond || d > 2*time.Second || len(p.SampleType) != 2 {
		t.Errorf("profile: %v", p)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("perfserve after cancel: %v", err)
	}
}
