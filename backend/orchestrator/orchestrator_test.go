package orchestrator

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lnbench/lnbench/backend"
)

// script is an orchestrator whose Locate answers from a list, one answer
// per call, the last repeated; it counts the calls.
type script struct {
	mu      sync.Mutex
	answers []answer
	calls   int
	logs    string
	deploy  error
}

type answer struct {
	t   Task
	err error
}

func (s *script) Deploy(context.Context, string) error { return s.deploy }

func (s *script) Locate(context.Context, string) (Task, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.answers[min(s.calls, len(s.answers)-1)]
	s.calls++
	return a.t, a.err
}

func (s *script) Logs(context.Context, Task, int) (string, error) { return s.logs, nil }

func (s *script) Death(ctx context.Context, service string, t Task, n int) backend.Death {
	return backend.Death{Actor: service, Reason: "task " + t.State, LogTail: backend.TailLines(Tail(ctx, s, t, n))}
}

func (s *script) located() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

var running = Task{ID: "t1", Container: "c1", State: "running", Running: true, Ports: map[int]int{10009: 49153}}

func fast(timeout time.Duration) Wait {
	return Wait{Timeout: timeout, Every: time.Millisecond, Relocate: 5 * time.Millisecond}
}

func TestReadyWaitsForARunningContainerThenItsCheck(t *testing.T) {
	s := &script{answers: []answer{{t: Task{}}, {err: errors.New("engine busy")}, {t: Task{Container: "c1", State: "created"}}, {t: running}}}
	checks := 0
	got, err := fast(time.Minute).Ready(t.Context(), s, "node", "alice", func(t Task) bool {
		if !t.Running {
			panic("checked before the container runs")
		}
		checks++
		return checks == 3
	})
	if err != nil || got.Container != "c1" || got.Ports[10009] != 49153 || checks != 3 {
		t.Fatalf("got %+v, %v after %d checks", got, err, checks)
	}
	if s.located() < 4 {
		t.Errorf("located %d times: a transient error or a created container must be asked again", s.located())
	}
}

func TestReadyLocatesARunningContainerOnlyEveryRelocate(t *testing.T) {
	s := &script{answers: []answer{{t: running}}}
	w := Wait{Timeout: time.Minute, Every: time.Millisecond, Relocate: time.Hour}
	checks := 0
	if _, err := w.Ready(t.Context(), s, "node", "alice", func(Task) bool { checks++; return checks == 20 }); err != nil {
		t.Fatal(err)
	}
	if s.located() != 1 {
		t.Errorf("located %d times in 20 checks, want once (Relocate is an hour)", s.located())
	}
}

func TestReadyReportsADeathAtOnce(t *testing.T) {
	s := &script{answers: []answer{{t: running}, {t: Task{Container: "c1", State: "exited", Ended: true}}}, logs: "panic: boom\n"}
	start := time.Now()
	_, err := fast(time.Minute).Ready(t.Context(), s, "node", "bob", func(Task) bool { return false })
	var dead *backend.DeadError
	if !errors.As(err, &dead) || dead.Deaths[0].Actor != "bob" || dead.Deaths[0].Reason != "task exited" ||
		!strings.Contains(strings.Join(dead.Deaths[0].LogTail, "\n"), "panic: boom") {
		t.Fatalf("death: %v %+v", err, dead)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("the death took %v to report", time.Since(start))
	}
}

func TestReadyEndsAtAPermanentError(t *testing.T) {
	s := &script{answers: []answer{{err: Permanent(errors.New("task t1 runs on swarm node lnbe-9, which is not in the engines file"))}}}
	_, err := fast(time.Minute).Ready(t.Context(), s, "node", "bob", func(Task) bool { return true })
	if err == nil || !strings.Contains(err.Error(), "lnbe-9") || s.located() != 1 {
		t.Fatalf("%v after %d looks", err, s.located())
	}
}

func TestReadyTimeoutNamesTheTaskAndItsLogTail(t *testing.T) {
	for _, c := range []struct {
		name string
		task Task
		want []string
	}{
		{"never placed", Task{}, []string{"node bob did not start in time (start timeout 30ms); last log lines:\n  (no container)"}},
		{"one engine", running, []string{"(start timeout 30ms); last log lines:\n  waiting for wallet\n  still waiting"}},
		{"a swarm node", Task{ID: "t1", Container: "c1", State: "starting", Err: "no suitable node", Node: "lnbe-2"},
			[]string{`(start timeout 30ms; task state "starting" no suitable node on "lnbe-2")`, "  still waiting"}},
	} {
		s := &script{answers: []answer{{t: c.task}}, logs: "waiting for wallet\nstill waiting\n"}
		_, err := fast(30*time.Millisecond).Ready(t.Context(), s, "node", "bob", func(Task) bool { return false })
		for _, w := range c.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v\nwant %q", c.name, err, w)
			}
		}
	}
}

func TestStartDeploysFirstAndStopsAtItsError(t *testing.T) {
	s := &script{answers: []answer{{t: running}}, deploy: errors.New("compose up: no such image")}
	if _, err := fast(time.Minute).Start(t.Context(), s, "node", "bob", func(Task) bool { return true }); err == nil ||
		err.Error() != "starting bob: compose up: no such image" || s.located() != 0 {
		t.Fatalf("%v, located %d", err, s.located())
	}
	s.deploy = nil
	if _, err := fast(time.Minute).Start(t.Context(), s, "node", "bob", func(Task) bool { return true }); err != nil {
		t.Fatal(err)
	}
}

func TestReadyStopsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(20*time.Millisecond, cancel)
	s := &script{answers: []answer{{t: running}}}
	if _, err := fast(time.Minute).Ready(ctx, s, "node", "bob", func(Task) bool { return false }); !errors.Is(err, context.Canceled) {
		t.Fatalf("%v", err)
	}
}
