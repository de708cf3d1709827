package perfprof

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// session is one perf record over a process tree, running until stopped
// and starting a new perf.data whenever told to (SIGUSR2): a profile is the
// file cut at its end, so back-to-back profiles tile time, with no gap for
// perf to start or for perf script to read. Sample times are on the boot
// clock (-k boottime), as process start times in /proc are.
type session struct {
	root     int
	cmd      *exec.Cmd
	dir      string
	started  float64      // boot-clock seconds when perf was started
	attached map[int]bool // the -p list (children forked later are followed)
	lastCut  float64      // boot-clock time of the last cut, or the start
	dumps    chan string  // files perf reports writing
	exited   chan struct{}
	err      error // why perf exited, once exited is closed

	mu     sync.Mutex
	stderr strings.Builder
}

// startSession attaches perf to pids, and fails if perf exits in its
// first second (no rights, or a process gone before it attached: errGone).
func startSession(r Recorder, perf, mode string, root int, pids []int) (*session, error) {
	dir, err := os.MkdirTemp("", "perfprof-")
	if err != nil {
		return nil, err
	}
	ps := make([]string, len(pids))
	attached := map[int]bool{}
	for i, p := range pids {
		ps[i], attached[p] = strconv.Itoa(p), true
	}
	// -N -B: no build-id cache under ~/.debug, no build-id pass at the end;
	// symbols are read from the binaries' paths. --no-bpf-event: its side
	// thread delays perf's exit by up to 1 s.
	args := []string{"record", "-N", "-B", "--no-bpf-event", "-k", "boottime", "--switch-output=signal",
		"-F", strconv.Itoa(r.freq()), "--call-graph", mode, "-o", filepath.Join(dir, "perf.data"), "-p", strings.Join(ps, ",")}
	s := &session{root: root, dir: dir, attached: attached, dumps: make(chan string, 16), exited: make(chan struct{})}
	s.cmd = exec.Command(perf, args...)
	pipe, err := s.cmd.StderrPipe()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s.started = bootClock()
	if err := s.cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("perf record: %v", err)
	}
	s.lastCut = s.started
	read := make(chan struct{})
	go s.readStderr(pipe, read)
	go func() {
		<-read // Wait closes the pipe: read it all first
		err := s.cmd.Wait()
		s.mu.Lock()
		s.err = recordError(err, s.stderr.String())
		if s.err == nil {
			s.err = errors.New("perf record ended: every profiled process exited")
		}
		s.mu.Unlock()
		close(s.exited)
	}()
	select {
	case <-s.exited:
		os.RemoveAll(dir)
		return nil, s.err
	case <-time.After(time.Second):
		return s, nil
	}
}

// readStderr keeps perf's messages and passes on the files it writes
// ("[ perf record: Dump /tmp/…/perf.data.2026112520010738 ]").
func (s *session) readStderr(r io.Reader, done chan struct{}) {
	defer close(done)
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if path, ok := strings.CutPrefix(line, "[ perf record: Dump "); ok {
			select {
			case s.dumps <- strings.TrimSuffix(path, " ]"):
			default: // nobody will ask for it (perf's last file, at stop)
			}
			continue
		}
		s.mu.Lock()
		if s.stderr.Len() < 1<<16 {
			s.stderr.WriteString(line + "\n")
		}
		s.mu.Unlock()
	}
}

func (s *session) dead() bool {
	select {
	case <-s.exited:
		return true
	default:
		return false
	}
}

// missing tells whether the tree has a process perf does not see: one
// that was left out (too young) and not forked after perf started.
func (s *session) missing(procRoot string, tree []int) bool {
	for _, pid := range tree {
		if !s.attached[pid] && startTime(procRoot, pid) < s.started-0.05 {
			return true
		}
	}
	return false
}

// cut makes perf close its current file and returns it with the time of
// the cut. After perf has exited, its last file is the cut.
func (s *session) cut() (string, float64, error) {
	for stale := true; stale; { // a file that came after its cut timed out
		select {
		case path := <-s.dumps:
			os.Remove(path)
		default:
			stale = false
		}
	}
	at := bootClock()
	if !s.dead() {
		_ = s.cmd.Process.Signal(syscall.SIGUSR2)
	}
	select {
	case path := <-s.dumps:
		return path, at, nil
	case <-time.After(10 * time.Second):
		return "", at, errors.New("perf record wrote no file within 10 s of being asked")
	case <-s.exited:
		select {
		case path := <-s.dumps:
			return path, at, nil
		default:
			return "", at, s.err
		}
	}
}

// stop ends perf and removes its files.
func (s *session) stop() {
	if !s.dead() {
		_ = s.cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-s.exited:
		case <-time.After(5 * time.Second):
			_ = s.cmd.Process.Kill()
			<-s.exited
		}
	}
	os.RemoveAll(s.dir)
}
