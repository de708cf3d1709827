package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/lnbench/lnbench/backend/compose"
	"github.com/lnbench/lnbench/internal/runs"
)

// fakeEngine stands for Docker: labelled objects per run id; Down forgets them.
type fakeEngine struct {
	objects map[string]int
	downs   []string
}

func (f *fakeEngine) RunObjects(context.Context) (map[string]int, error) { return f.objects, nil }
func (f *fakeEngine) Down(_ context.Context, id string) (fmt.Stringer, error) {
	f.downs = append(f.downs, id)
	n := 0
	for k, v := range f.objects {
		if id == "" || k == id {
			n += v
			delete(f.objects, k)
		}
	}
	return compose.Removed{Containers: n}, nil
}

// machine makes a private TMPDIR with one killed run (work folder, dead
// harness), one live run (this process) and one run only Docker knows.
func machine(t *testing.T) (*fakeEngine, string, string) {
	t.Setenv("TMPDIR", t.TempDir())
	killed := filepath.Join(runs.Root(), "20260101T120000Z-killed")
	os.MkdirAll(filepath.Join(killed, "alice"), 0o700)
	os.WriteFile(filepath.Join(killed, "alice", "admin.macaroon"), []byte("secret"), 0o600)
	os.WriteFile(filepath.Join(killed, "harness.pid"), []byte("999999999 1\n"), 0o600)
	live := filepath.Join(runs.Root(), "20260101T130000Z-live")
	if err := runs.Claim(live); err != nil {
		t.Fatal(err)
	}
	return &fakeEngine{objects: map[string]int{"20260101T120000Z-killed": 4, "20260101T140000Z-dockeronly": 2}}, killed, live
}

func TestDownUnknownRunFailsAndListsKnownOnes(t *testing.T) {
	eng, _, _ := machine(t)
	var out bytes.Buffer
	cmd := downCmdWith(downEnv{stdout: &out, engineOf: func(context.Context) runEngine { return eng }})
	cmd.SetArgs([]string{"nosuch"})
	err := cmd.ExecuteContext(context.Background())
	if err == nil || !strings.Contains(err.Error(), `no run "nosuch"`) || !strings.Contains(err.Error(), "20260101T120000Z-killed") || !strings.Contains(err.Error(), "20260101T140000Z-dockeronly") {
		t.Fatalf("err %v", err)
	}
	if len(eng.downs) != 0 {
		t.Errorf("an unknown id removed something: %v", eng.downs)
	}
}

func TestDownOneRemovesAKilledRunsWorkFolder(t *testing.T) {
	eng, killed, _ := machine(t)
	var out bytes.Buffer
	cmd := downCmdWith(downEnv{stdout: &out, engineOf: func(context.Context) runEngine { return eng }})
	cmd.SetArgs([]string{"20260101T120000Z-killed"})
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(killed); !os.IsNotExist(err) {
		t.Errorf("work folder of the killed run is still there (%v)", err)
	}
	if !strings.Contains(out.String(), "4 container(s)") || !strings.Contains(out.String(), "work folder") {
		t.Errorf("output %q", out.String())
	}
}

func TestDownAllKeepsOnlyLiveHarnessesFolders(t *testing.T) {
	eng, killed, live := machine(t)
	var out bytes.Buffer
	cmd := downCmdWith(downEnv{stdout: &out, engineOf: func(context.Context) runEngine { return eng }})
	cmd.SetArgs([]string{"--all"})
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(killed); !os.IsNotExist(err) {
		t.Errorf("killed run's work folder left (%v)", err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("a live harness's work folder was removed: %v", err)
	}
	if want := "every run: removed 6 container(s), 0 network(s), 0 volume(s), 1 work folder(s); kept 1 work folder(s) of live harnesses"; !strings.Contains(out.String(), want) {
		t.Errorf("output %q, want %q", out.String(), want)
	}
}

func TestDownWithoutEngineStillRemovesWorkFolders(t *testing.T) {
	_, killed, _ := machine(t)
	var out bytes.Buffer
	cmd := downCmdWith(downEnv{stdout: &out, engineOf: func(context.Context) runEngine { return nil }})
	cmd.SetArgs([]string{"20260101T120000Z-killed"})
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(killed); !os.IsNotExist(err) {
		t.Errorf("work folder left (%v)", err)
	}
}

func TestPsShowsAgeHarnessAndObjects(t *testing.T) {
	eng, _, _ := machine(t)
	var out bytes.Buffer
	cmd := psCmdWith(&out, func(context.Context) runEngine { return eng })
	cmd.SetArgs(nil)
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("ps:\n%s", out.String())
	}
	// Newest first: the Docker-only run, the live one, the killed one.
	for i, want := range [][]string{{"RUN", "HARNESS"}, {"dockeronly", " - ", " 2 "}, {"-live", "alive (pid"}, {"-killed", "exited", " 4 "}} {
		for _, w := range want {
			if !strings.Contains(lines[i], w) {
				t.Errorf("line %d %q lacks %q", i, lines[i], w)
			}
		}
	}
}

// down --backend swarm with one engine lost removes what the others hold
// (and the run's work folder), then fails naming the lost engine, what
// may remain there and the command to run when it is back.
func TestDownSwarmWithAnEngineLost(t *testing.T) {
	_, killed, _ := machine(t)
	engines := filepath.Join(t.TempDir(), "engines")
	os.WriteFile(engines, []byte("lnbe-1 198.18.0.11 fake://1\nlnbe-2 198.18.0.12 fake://2\nlnbe-3 198.18.0.13 fake://3\n"), 0o644)
	var mu sync.Mutex
	var removed []string
	run := func(_ context.Context, host string, _ []string, args ...string) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case host == "fake://3":
			return "", fmt.Errorf("docker -H %s %s: exit status 1: Cannot connect to the Docker daemon at %s. Is the docker daemon running?", host, args[0], host)
		case args[0] == "info":
			return fmt.Sprint(host == "fake://1"), nil
		case args[0] == "ps" || slices.Contains(args, "ls"):
			if slices.Contains(removed, host+" "+args[0]) {
				return "", nil
			}
			return "x" + host[7:], nil
		case args[0] == "rm" || slices.Contains(args, "rm"):
			removed = append(removed, host+" "+map[string]string{"rm": "ps"}[args[0]]+strings.TrimPrefix(args[0], "rm"))
		}
		return "", nil
	}
	var out, log bytes.Buffer
	cmd := downCmdWith(downEnv{stdout: &out, stderr: &log, engineOf: func(context.Context) runEngine { return nil }, docker: run})
	cmd.SetArgs([]string{"--backend", "swarm", "--swarm-engines", engines, "20260101T120000Z-killed"})
	err := cmd.ExecuteContext(context.Background())
	t.Logf("stdout: %sstderr: %serror: %v", out.String(), log.String(), err)
	for _, want := range []string{"engine lnbe-3 (fake://3) does not answer (Cannot connect to the Docker daemon",
		"whatever carries lnbench.run=20260101T120000Z-killed there (containers, networks, volumes) stays",
		"run `lnbench down --backend swarm --swarm-engines " + engines + " 20260101T120000Z-killed` again once lnbe-3 answers"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v lacks %q", err, want)
		}
	}
	if want := "run 20260101T120000Z-killed: swarm of lnbe-1, lnbe-2: removed 1 service(s), 2 container(s), 2 network(s), 2 volume(s), 1 config(s), 1 secret(s), and its work folder"; !strings.Contains(out.String(), want) {
		t.Errorf("stdout %q, want %q", out.String(), want)
	}
	if _, err := os.Stat(killed); !os.IsNotExist(err) {
		t.Errorf("work folder left (%v)", err)
	}
}
