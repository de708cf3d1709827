package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lnbench/lnbench/backend/compose"
	"github.com/lnbench/lnbench/runs"
)

// fakeEngine stands for Docker: labelled objects per run id; Down forgets them.
type fakeEngine struct {
	objects map[string]int
	downs   []string
}

func (f *fakeEngine) RunObjects(context.Context) (map[string]int, error) { return f.objects, nil }
func (f *fakeEngine) Down(_ context.Context, id string) (compose.Removed, error) {
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
	cmd := downCmdWith(&out, func(context.Context) runEngine { return eng })
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
	cmd := downCmdWith(&out, func(context.Context) runEngine { return eng })
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
	cmd := downCmdWith(&out, func(context.Context) runEngine { return eng })
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
	cmd := downCmdWith(&out, func(context.Context) runEngine { return nil })
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
