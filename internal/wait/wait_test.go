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

func TestPollStopsAtAnError(t *testing.T) {
	dead := errors.New("bob died")
	calls := 0
	err := Poll(context.Background(), time.Millisecond, func() (bool, error) {
		calls++
		if calls == 2 {
			return false, dead
		}
		return false, nil
	})
	if !errors.Is(err, dead) || calls != 2 {
		t.Errorf("err %v after %d calls, want %v after 2", err, calls, dead)
	}
	if err := Poll(context.Background(), time.Millisecond, func() (bool, error) { return true, nil }); err != nil {
		t.Errorf("done at once: %v", err)
	}
}
