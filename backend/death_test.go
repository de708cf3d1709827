package backend

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/docker/docker/api/types/container"
)

func TestDeathCause(t *testing.T) {
	tail := []string{"2026-12-01 [INF] LTND: Opening the main database", "2026-12-01 [INF] LNWL: Creating wallet"}
	for _, tt := range []struct {
		name string
		d    Death
		want string
	}{
		{"OOM at a limit", Death{Actor: "alice", Reason: "exited", ExitCode: 137, Signal: "SIGKILL", OOM: true, MemoryLimit: 128 << 20, LogTail: tail},
			"alice died: OOM-killed at its memory limit of 128 MiB (exit code 137); last log lines:\n  " + strings.Join(tail, "\n  ")},
		{"OOM without a limit", Death{Actor: "alice", Reason: "exited", ExitCode: 137, Signal: "SIGKILL", OOM: true},
			"alice died: OOM-killed (exit code 137); no log lines"},
		{"SIGKILL under a limit, no OOM flag", Death{Actor: "bob", Reason: "exited", ExitCode: 137, Signal: "SIGKILL", MemoryLimit: 2 << 30},
			"bob died: exited with code 137 (SIGKILL; memory limit 2.0 GiB); no log lines"},
		{"local signal", Death{Actor: "bob", Reason: "exited", ExitCode: -1, Signal: "SIGSEGV", LogTail: []string{"panic"}},
			"bob died: killed by SIGSEGV; last log lines:\n  panic"},
		{"exit code", Death{Actor: "btcd", Reason: "exited", ExitCode: 1}, "btcd died: exited with code 1; no log lines"},
		{"paused", Death{Actor: "carol", Reason: "paused", ExitCode: -1}, "carol died: paused; no log lines"},
		{"swarm task", Death{Actor: "carol", Reason: "task failed", ExitCode: 2, Where: "node2"},
			"carol died: task failed with exit code 2 (on node2); no log lines"},
		{"engine lost", Death{Actor: "carol", Reason: "its engine was lost (swarm node node2 is Down)", ExitCode: -1, Where: "node2"},
			"carol died: its engine was lost (swarm node node2 is Down) (on node2); no log lines"},
		{"nothing known", Death{Actor: "x", ExitCode: -1}, "x died: stopped (cause unknown); no log lines"},
	} {
		if got := tt.d.String(); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
	e := &DeadError{Deaths: []Death{{Actor: "alice", ExitCode: 1}, {Actor: "bob", ExitCode: 2}}}
	if got := e.Error(); got != "alice died: exited with code 1; no log lines\nbob died: exited with code 2; no log lines" {
		t.Errorf("DeadError = %q", got)
	}
}

// TestDeathOfInspectedContainers reads what `docker inspect` said of the
// LND containers OOM-killed by `--memory 128m` at start.
func TestDeathOfInspectedContainers(t *testing.T) {
	of := func(actor, doc string) Death {
		var c container.InspectResponse
		if err := json.Unmarshal([]byte(doc), &c); err != nil || c.ContainerJSONBase == nil {
			t.Fatalf("%s: %v", doc, err)
		}
		return DeathOf(actor, c.State, c.HostConfig)
	}
	d := of("alice", `{"Id":"abc","State":{"Status":"exited","Running":false,"Paused":false,"OOMKilled":true,"Dead":false,"Pid":0,"ExitCode":137,"Error":""},"HostConfig":{"Memory":134217728}}`)
	if want := (Death{Actor: "alice", Reason: "exited", ExitCode: 137, Signal: "SIGKILL", OOM: true, MemoryLimit: 128 << 20}); d.Actor != want.Actor ||
		d.Reason != want.Reason || d.ExitCode != want.ExitCode || d.Signal != want.Signal || d.OOM != want.OOM || d.MemoryLimit != want.MemoryLimit {
		t.Errorf("got %+v, want %+v", d, want)
	}
	if got := d.Cause(); got != "OOM-killed at its memory limit of 128 MiB (exit code 137)" {
		t.Errorf("cause %q", got)
	}
	if d := of("carol", `{"State":{"Status":"paused","ExitCode":0},"HostConfig":{"Memory":0}}`); d.Cause() != "paused" {
		t.Errorf("paused: %q", d.Cause())
	}
}

func TestSignalOfExitCode(t *testing.T) {
	for code, want := range map[int]string{137: "SIGKILL", 143: "SIGTERM", 139: "SIGSEGV", 1: "", 128: "", 255: ""} {
		if got := SignalOfExitCode(code); got != want {
			t.Errorf("SignalOfExitCode(%d) = %q, want %q", code, got, want)
		}
	}
}
