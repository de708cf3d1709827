// Package progress tells the user where a run is: a bar with case,
// iteration and ETA on a terminal, plain lines otherwise (CI logs, pipes).
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// Iteration is one finished iteration as progress shows it.
type Iteration struct {
	Phase          string // warmup or measure, with the network's tag when several run
	Index, Of      int    // iteration Index of Of; Of is 0 when unknown (a timed run)
	OK, Failed     int    // payments
	SecPerOp       float64
	PaymentsPerSec float64
}

// Reporter receives run events.
type Reporter interface {
	io.Writer // free-form setup lines
	// Plan announces the total number of iterations (warm-up + measured);
	// -1 when unknown (a timed run).
	Plan(iterations int)
	Case(i, n int, id string)
	// Iteration reports a finished iteration.
	Iteration(it Iteration)
	Done()
}

// New picks a bar when w is a terminal, else plain lines. A writer that
// wraps a file (the CLI's broken-pipe watch) shows its descriptor by Fd.
func New(w io.Writer) Reporter {
	if f, ok := w.(interface{ Fd() uintptr }); ok && term.IsTerminal(int(f.Fd())) && os.Getenv("CI") == "" {
		return &bar{w: w}
	}
	return &lines{w: w}
}

type lines struct {
	w      io.Writer
	mu     sync.Mutex
	caseID string
}

func (l *lines) Write(p []byte) (int, error) { return l.w.Write(p) }
func (l *lines) Plan(int)                    {}
func (l *lines) Case(i, n int, id string) {
	l.mu.Lock()
	l.caseID = id
	l.mu.Unlock()
	fmt.Fprintf(l.w, "case %d/%d: %s\n", i, n, id)
}
func (l *lines) Iteration(it Iteration) {
	fmt.Fprintf(l.w, "  %s %s %s: %d ok, %d failed, %.3f s/op, %.1f payments/s\n", l.caseID, it.Phase, ofTotal(it.Index, it.Of), it.OK, it.Failed, it.SecPerOp, it.PaymentsPerSec)
}
func (l *lines) Done() {}

type bar struct {
	w        io.Writer
	mu       sync.Mutex
	b        *progressbar.ProgressBar
	caseDesc string
}

func (b *bar) Plan(iterations int) {
	b.b = progressbar.NewOptions(iterations, progressbar.OptionSetWriter(b.w), progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true), progressbar.OptionShowElapsedTimeOnFinish(), progressbar.OptionSetWidth(24),
		progressbar.OptionClearOnFinish())
}

// Write shows setup lines as the bar's description.
func (b *bar) Write(p []byte) (int, error) {
	msg := strings.TrimSpace(string(p))
	if b.b == nil {
		return b.w.Write(p)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.b.Describe(b.caseDesc + " " + msg)
	return len(p), nil
}

func (b *bar) Case(i, n int, id string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.caseDesc = fmt.Sprintf("case %d/%d %s", i, n, id)
	if b.b != nil {
		b.b.Describe(b.caseDesc)
	}
}

func (b *bar) Iteration(it Iteration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.b == nil {
		return
	}
	b.b.Describe(fmt.Sprintf("%s %s %s %.1f pay/s", b.caseDesc, it.Phase, ofTotal(it.Index, it.Of), it.PaymentsPerSec))
	_ = b.b.Add(1)
}

func (b *bar) Done() {
	if b.b != nil {
		_ = b.b.Finish()
		fmt.Fprintln(b.w)
	}
}

// ofTotal is "i/n", or "i" when the total is unknown (n <= 0: a timed run).
func ofTotal(i, n int) string {
	if n <= 0 {
		return fmt.Sprint(i)
	}
	return fmt.Sprintf("%d/%d", i, n)
}
