package wait

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestUntilReturnsOnceOKHolds(t *testing.T) {
	calls := 0
	if err := Until(context.Background(), time.Millisecond, func() bool { calls++; return calls == 3 }); err != nil || calls != 3 {
		t.Errorf("err %v after %d calls, want nil after 3", err, calls)
	}
}

func TestUntilReturnsTheContextsCause(t *testing.T) {
	why := errors.New("start timeout 1ms")
	ctx, cancel := context.WithTimeoutCause(context.Background(), time.Millisecond, why)
	defer cancel()
	if err := Until(ctx, time.Millisecond, func() bool { return false }); !errors.Is(err, why) {
		t.Errorf("err %v, want %v", err, why)
	}
}
