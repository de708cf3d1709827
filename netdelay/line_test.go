package netdelay

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"
)

type fakeQueue struct {
	mu   sync.Mutex
	ids  []uint32
	at   []time.Time
	fail map[uint32]bool
}

func (f *fakeQueue) SetVerdict(id uint32, v int) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail[id] {
		return errors.New("netlink: no buffer space")
	}
	f.ids = append(f.ids, id)
	f.at = append(f.at, time.Now())
	return nil
}

// Stopping a delayer releases what it holds on schedule, in order: a
// cleared delay loses no packet, and the summary says so.
func TestLineDrainReleasesEveryHeldPacket(t *testing.T) {
	cases := []struct {
		name     string
		n        int
		fail     map[uint32]bool
		released int
	}{
		{"all released", 50, nil, 50},
		{"a failed verdict is counted as not released", 10, map[uint32]bool{3: true}, 9},
		{"nothing held", 0, nil, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := &fakeQueue{fail: c.fail}
			var errs []error
			l := newLine(q, 1, &Schedule{Delay: 20 * time.Millisecond}, func(err error) { errs = append(errs, err) })
			stop := make(chan struct{})
			go l.run(stop)
			start := time.Now()
			for i := range c.n {
				l.add(uint32(i), time.Now())
			}
			// The stop comes while every packet is still held.
			l.drain(context.Background(), 30*time.Millisecond)
			close(stop)
			s := l.summary(7)
			if s.Held != c.n || s.Released != c.released || s.Lost() != c.n-c.released {
				t.Fatalf("summary %+v, want %d held, %d released", s, c.n, c.released)
			}
			q.mu.Lock()
			defer q.mu.Unlock()
			if !slices.IsSorted(q.ids) {
				t.Errorf("released out of order: %v", q.ids)
			}
			for _, at := range q.at {
				if at.Sub(start) < 20*time.Millisecond {
					t.Errorf("released after %v, before its delay", at.Sub(start))
				}
			}
			got, ok := ParseSummary("netdelay: queue 7 bound, delay 20ms ± 0s\n" + s.String() + "\n")
			if !ok || got != s {
				t.Errorf("summary line %q read back as %+v", s, got)
			}
		})
	}
}

// drain gives up when its bound ends, whatever is still held.
func TestLineDrainBounded(t *testing.T) {
	l := newLine(&fakeQueue{}, 1, &Schedule{Delay: time.Hour}, func(error) {})
	l.add(1, time.Now())
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	l.drain(ctx, 10*time.Millisecond)
	if time.Since(start) > time.Second || l.summary(0).Lost() != 1 {
		t.Errorf("drain took %v, summary %+v", time.Since(start), l.summary(0))
	}
}

func TestIsBound(t *testing.T) {
	if !IsBound("netdelay: queue 3 bound, delay 50ms ± 5ms") || IsBound("netdelay: queue 3: held 1, released 1") {
		t.Error("IsBound")
	}
}

// Lifting a delay lets later packets pass at once, yet never before the
// ones still held: TCP takes reordering for loss.
func TestLiftKeepsOrder(t *testing.T) {
	q := &fakeQueue{}
	l := newLine(q, 1, &Schedule{Delay: 100 * time.Millisecond}, func(error) {})
	stop := make(chan struct{})
	defer close(stop)
	go l.run(stop)
	start := time.Now()
	for i := range 5 {
		l.add(uint32(i), time.Now())
	}
	time.Sleep(60 * time.Millisecond)
	n := l.lift()
	for i := 5; i < 10; i++ {
		l.add(uint32(i), time.Now())
	}
	l.waitDone(context.Background(), 10)
	if n != 5 {
		t.Errorf("lift counted %d held, want 5", n)
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if !slices.Equal(q.ids, []uint32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}) {
		t.Errorf("released %v: want arrival order", q.ids)
	}
	// Held ones leave at 100 ms; lifted ones right after them, not 100 ms
	// after their own arrival at 60 ms.
	if held, lifted := q.at[4].Sub(start), q.at[9].Sub(start); held < 100*time.Millisecond || lifted > 140*time.Millisecond {
		t.Errorf("held released at %v, lifted at %v: want 100 ms, then at once", held, lifted)
	}
}

func TestParseIDSequence(t *testing.T) {
	data := "    0  12345     0 1    64     0     0        7  1\n    3  12346     2 1    64     0     0      913  1\n"
	if n, ok := parseIDSequence(data, 3); !ok || n != 913 {
		t.Errorf("queue 3: %d %v", n, ok)
	}
	if _, ok := parseIDSequence(data, 5); ok {
		t.Error("queue 5 found")
	}
}
