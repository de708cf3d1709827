package runner

import (
	"os"
	"runtime"
)

// paymentProcs is the harness's GOMAXPROCS while a case's payments run.
// The workers only wait on the nodes; with one P the goroutine a gRPC reply
// wakes runs on the thread that read it, instead of waking an idle thread
// that spins for work and sleeps again. At c=60 on two cores those futex
// wake-ups and spins were about a fifth of the harness's CPU.
const paymentProcs = 1

// limitProcs sets GOMAXPROCS to paymentProcs until restore is called,
// unless the user chose GOMAXPROCS: their setting stands.
func limitProcs() (restore func()) {
	if os.Getenv("GOMAXPROCS") != "" {
		return func() {}
	}
	prev := runtime.GOMAXPROCS(paymentProcs)
	return func() { runtime.GOMAXPROCS(prev) }
}
