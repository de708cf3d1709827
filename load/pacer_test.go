package load

import (
	"testing"
	"time"
)

func TestPacers(t *testing.T) {
	tests := []struct {
		name  string
		p     Pacer
		i     int
		want  time.Duration
		slack time.Duration
	}{
		{"constant first", ConstantRate{10}, 0, 0, 0},
		{"constant 10/s", ConstantRate{10}, 5, 500 * time.Millisecond, 0},
		{"constant 3/s rounds", ConstantRate{3}, 1, 333333333 * time.Nanosecond, 1},
		{"constant 200/s", ConstantRate{200}, 1000, 5 * time.Second, 0},
	}
	for _, tt := range tests {
		got := tt.p.Offset(tt.i)
		d := got - tt.want
		if d < 0 {
			d = -d
		}
		if d > tt.slack {
			t.Errorf("%s: Offset(%d) = %v, want %v", tt.name, tt.i, got, tt.want)
		}
	}
}

func TestPacerMonotonic(t *testing.T) {
	for _, p := range []Pacer{ConstantRate{7}, ConstantRate{3}} {
		prev := time.Duration(-1)
		for i := 0; i < 1000; i++ {
			o := p.Offset(i)
			if o < prev {
				t.Fatalf("%v: Offset(%d)=%v < Offset(%d)=%v", p, i, o, i-1, prev)
			}
			prev = o
		}
	}
}
