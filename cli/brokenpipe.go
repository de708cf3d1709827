package cli

import (
	"errors"
	"io"
	"os"
	"syscall"
)

// pipeWatch passes writes through and, the first time one meets a broken
// pipe, records SIGPIPE as the cause and cancels the run.
type pipeWatch struct {
	w      io.Writer
	record func(any)
	cancel func()
}

func watchPipe(w io.Writer, record func(any), cancel func()) io.Writer {
	return &pipeWatch{w: w, record: record, cancel: cancel}
}

func (p *pipeWatch) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	if errors.Is(err, syscall.EPIPE) {
		p.record(os.Signal(syscall.SIGPIPE))
		p.cancel()
	}
	return n, err
}

// Fd lets a terminal check see the file underneath.
func (p *pipeWatch) Fd() uintptr {
	if f, ok := p.w.(interface{ Fd() uintptr }); ok {
		return f.Fd()
	}
	return ^uintptr(0)
}
