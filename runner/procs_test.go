package runner

import (
	"runtime"
	"testing"
)

func TestLimitProcsRestores(t *testing.T) {
	t.Setenv("GOMAXPROCS", "") // unset for the test: the harness chooses
	before := runtime.GOMAXPROCS(0)
	restore := limitProcs()
	if got := runtime.GOMAXPROCS(0); got != paymentProcs {
		t.Errorf("during payments GOMAXPROCS = %d, want %d", got, paymentProcs)
	}
	restore()
	if got := runtime.GOMAXPROCS(0); got != before {
		t.Errorf("after payments GOMAXPROCS = %d, want %d back", got, before)
	}
}

func TestLimitProcsKeepsUsersSetting(t *testing.T) {
	t.Setenv("GOMAXPROCS", "3")
	prev := runtime.GOMAXPROCS(3)
	defer runtime.GOMAXPROCS(prev)
	restore := limitProcs()
	defer restore()
	if got := runtime.GOMAXPROCS(0); got != 3 {
		t.Errorf("GOMAXPROCS = %d, want the user's 3", got)
	}
}
