//go:build e2e

// Package e2e holds end-to-end tests against real btcd and lnd processes.
// They need the node binaries in the cache: `lnbench build` (test.sh runs it).
package e2e

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/backend/local"
	"github.com/lnbench/lnbench/chain/bitcoincli"
	"github.com/lnbench/lnbench/cli"
	"github.com/lnbench/lnbench/internal/testsupport"
	"github.com/lnbench/lnbench/nodebuild"
	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/report"
	"github.com/lnbench/lnbench/runner"
	"github.com/lnbench/lnbench/scenario"
)

// rootDir is resolved once, before any test runs: a few sequential tests
// change the working directory, so ".." must not be read later.
var rootDir, rootErr = filepath.Abs("..")

func repoRoot(t *testing.T) string {
	t.Helper()
	if rootErr != nil {
		t.Fatal(rootErr)
	}
	return rootDir
}

// TestMain removes the lnbench binary the tests share. Reached as
// bitcoin-cli or the route log plugin (the symlinks the local backend
// gives CLN nodes to this executable, in process runs), the test binary is
// that tool, as lnbench is. For in-process runs it builds the standalone
// bitcoin-cli beside itself, as run.sh does beside lnbench: the test
// binary, reached as bitcoin-cli six times a poll per CLN node, would
// add its whole init to each call.
func TestMain(m *testing.M) {
	if cli.ReachedAsTool(os.Args) {
		os.Exit(cli.Main(os.Stdout, os.Stderr, cli.Args(os.Args)))
	}
	if exe, err := os.Executable(); err == nil {
		cmd := exec.Command("go", "build", "-o", filepath.Join(filepath.Dir(exe), bitcoincli.StandaloneName), "./cmd/lnbench-bitcoin-cli")
		cmd.Dir, cmd.Env = rootDir, append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "e2e: the standalone bitcoin-cli: %v\n%s", err, out)
		}
	}
	// Every test builds its networks unless it asks for snapshots (or, as
	// TestDefaultRunRestoresItsNetwork, runs lnbench without this): a
	// default restore would make one test's network another's, from a
	// cache that outlives the run.
	os.Setenv(cli.FreshNetworkEnv, "1")
	// R's plots cost a run seconds and no test but TestLocalAlicePaysBob
	// reads them (report's tests draw every plot): lnbench run and
	// report skip them here, writing plots.R.
	os.Setenv(cli.PlotsEnv, "0")
	code := m.Run()
	if cliDir != "" {
		os.RemoveAll(cliDir)
	}
	os.Exit(code)
}

// binaries returns the cached node build or fails with the fix.
func binaries(t *testing.T) nodebuild.Result {
	t.Helper()
	spec, err := nodebuild.Find(filepath.Join(repoRoot(t), "images"), "lnd", scenario.DefaultNode.Version)
	if err != nil {
		t.Fatal(err)
	}
	r, err := nodebuild.Locate(nodebuild.DefaultCacheDir(), spec)
	testsupport.RequireOrSkip(t, err == nil, fmt.Sprintf("needs the node binaries: %v (./test.sh builds them first)", err))
	return r
}

// processesMentioning lists live processes whose command line contains s.
func processesMentioning(s string) []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		cmd := strings.ReplaceAll(string(data), "\x00", " ")
		if strings.Contains(cmd, s) {
			out = append(out, e.Name()+": "+cmd)
		}
	}
	return out
}

// runLocal runs a scenario in-process on the local backend and returns the
// report and the artifacts folder.
func runLocal(t *testing.T, s scenario.Scenario) (report.Report, string) {
	t.Helper()
	return runLocalIn(t, s, t.TempDir())
}

// runLocalIn is runLocal with the node data dirs under work, so a test can
// check what is left there. It draws no plots (TestMain).
func runLocalIn(t *testing.T, s scenario.Scenario, work string) (report.Report, string) {
	t.Helper()
	return runLocalRender(t, s, work, report.RenderOptions{SkipPlots: true})
}

// runLocalRender is runLocalIn rendering the reports with render.
func runLocalRender(t *testing.T, s scenario.Scenario, work string, render report.RenderOptions) (report.Report, string) {
	t.Helper()
	bins := binaries(t)
	run, err := runner.NewRun(artifactsDir(t), s.Name)
	if err != nil {
		t.Fatal(err)
	}
	var logOut io.Writer = io.Discard
	if testing.Verbose() {
		logOut = os.Stderr
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	newBackend := func(n runner.NetworkSpec) (backend.Backend, error) {
		return local.New(local.Options{RunID: n.RunID, WorkDir: n.WorkDir, Pprof: n.Profiling,
			BinDirs: map[string]string{"lnd/" + s.Node.Version: bins.Dir}, ChainBinDir: bins.Dir})
	}
	opts := runner.Options{Scenario: s, BackendName: "local", NewBackend: newBackend, Log: logOut, WorkRoot: work,
		UnknownVerdicts: report.UnknownVerdicts}
	if _, err := runner.Execute(ctx, opts, run); err != nil {
		t.Fatal(err)
	}
	// The reports, as `lnbench run` writes them once the runner returns.
	rep, err := report.RenderWith(run.Dir, logOut, render)
	if err != nil {
		t.Fatal(err)
	}
	return rep, run.Dir
}

// poll checks cond every interval until it holds (true) or timeout has
// passed (false). cond runs on the caller's goroutine, so it may t.Fatal.
func poll(timeout, interval time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		<-tick.C
	}
	return true
}

// waitForStream waits until the one run under arts has at least n records
// in its payments.jsonl and returns that file, or "" after timeout.
func waitForStream(arts string, n int, timeout time.Duration) string {
	var stream string
	poll(timeout, 200*time.Millisecond, func() bool {
		m, _ := filepath.Glob(filepath.Join(arts, "*", "payments.jsonl"))
		if len(m) != 1 {
			return false
		}
		if recs, _ := result.ReadFile(m[0]); len(recs) >= n {
			stream = m[0]
		}
		return stream != ""
	})
	return stream
}
