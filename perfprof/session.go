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
	kallsyms string          // a copy of /proc/kallsyms for perf script; "" if none
	started  float64         // boot-clock seconds when perf was started
	attached map[int]bool    // the -p list (children forked later are followed)
	lastCut  float64         // boot-clock time of the last cut, or when sampling began
	reaped   map[int]float64 // the tree's waited-for children's CPU seconds at lastCut (readReaped)
	served   float64         // boot-clock time the last profile was handed back, or when sampling began
	ctl, ack *os.File        // perf's control pipe (--control)
	dumps    chan string     // files perf reports writing
	exited   chan struct{}
	err      error // why perf exited, once exited is closed

	mu     sync.Mutex
	stderr strings.Builder
}

// startSession attaches perf to pids with its events off, then turns them
// on through perf's control pipe: the ack says perf is in its main loop (so
// it heeds SIGUSR2; on a busy machine that takes over a second), and when
// sampling began. It fails if perf exits first (no rights, or a process
// gone before it attached: errGone).
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
	ctlR, ctlW, err := os.Pipe()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	ackR, ackW, err := os.Pipe()
	if err != nil {
		os.RemoveAll(dir)
		ctlR.Close()
		ctlW.Close()
		return nil, err
	}
	// -N -B: no build-id cache under ~/.debug, no build-id pass at the end;
	// symbols are read from the binaries' paths. --no-bpf-event: its side
	// thread delays perf's exit by up to 1 s. -D -1: events off until
	// "enable" comes on the control pipe (fds 3 and 4, ExtraFiles).
	args := []string{"record", "-N", "-B", "--no-bpf-event", "-k", "boottime", "--switch-output=signal",
		"-D", "-1", "--control=fd:3,4",
		"-F", strconv.Itoa(r.freq()), "--call-graph", mode, "-o", filepath.Join(dir, "perf.data"), "-p", strings.Join(ps, ",")}
	s := &session{root: root, dir: dir, attached: attached, ctl: ctlW, ack: ackR, dumps: make(chan string, 16), exited: make(chan struct{})}
	if ks, err := os.ReadFile("/proc/kallsyms"); err == nil && len(ks) > 0 {
		if os.WriteFile(filepath.Join(dir, "kallsyms"), ks, 0o600) == nil {
			s.kallsyms = filepath.Join(dir, "kallsyms")
		}
	}
	s.cmd = exec.Command(perf, args...)
	s.cmd.ExtraFiles = []*os.File{ctlR, ackW}
	pipe, err := s.cmd.StderrPipe()
	if err != nil {
		s.closePipes()
		ctlR.Close()
		ackW.Close()
		os.RemoveAll(dir)
		return nil, err
	}
	s.started = bootClock()
	err = s.cmd.Start()
	ctlR.Close() // perf's ends now
	ackW.Close()
	if err != nil {
		s.closePipes()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("perf record: %v", err)
	}
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
	acked := make(chan error, 1)
	go func() {
		if _, err := io.WriteString(s.ctl, "enable\n"); err != nil {
			acked <- err
			return
		}
		buf := make([]byte, 16)
		n, err := s.ack.Read(buf)
		if err == nil && !strings.HasPrefix(string(buf[:n]), "ack") {
			err = fmt.Errorf("perf's control pipe answered %q", buf[:n])
		}
		acked <- err
	}()
	// fail stops perf; its own error, when it exited, says more than ours.
	fail := func(err error) (*session, error) {
		s.stop()
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.err != nil {
			return nil, s.err
		}
		return nil, err
	}
	select {
	case err := <-acked:
		if err != nil {
			return fail(fmt.Errorf("perf record's control pipe: %v", err))
		}
		s.lastCut = bootClock()
		s.served = s.lastCut
		return s, nil
	case <-s.exited:
		return fail(nil)
	case <-time.After(30 * time.Second):
		s.stop()
		return nil, errors.New("perf record did not start within 30 s")
	}
}

func (s *session) closePipes() {
	s.ctl.Close()
	s.ack.Close()
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
// that was left out (too young) and not forked after perf started. One
// still under a second old is let be: most such are bcli's bitcoin-cli
// calls, gone before perf could be restarted for them.
func (s *session) missing(procRoot string, tree []int) bool {
	now := bootClock()
	for _, pid := range tree {
		if start := startTime(procRoot, pid); !s.attached[pid] && start < s.started-0.05 && now-start >= 1 {
			return true
		}
	}
	return false
}

// cut makes perf close its current file and returns it with the time of
// the cut. After perf has exited, its last file is the cut.
func (s *session) cut() (string, float64, error) {
	for stale := !s.dead(); stale; { // a file that came after its cut timed out (not perf's last)
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
		return "", at, errors.New("perf record wrote no file within 10 s of SIGUSR2")
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
	s.closePipes()
	os.RemoveAll(s.dir)
}
