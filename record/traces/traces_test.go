package traces

import (
	"os"
	"reflect"
	"testing"
	"time"
)

func TestIndexRoundTrip(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadIndex(dir); !os.IsNotExist(err) {
		t.Fatalf("empty folder: err = %v, want not-exist", err)
	}
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	want := []Window{
		{Actor: "bob", Label: "periodic", Start: t0, End: t0.Add(time.Minute), Samples: 7, Folded: Dir("bob") + "/000000s.folded"},
		{Actor: "alice", Label: "periodic", Start: t0, End: t0.Add(time.Minute), Elapsed: 1.5},
		{Actor: "bob", Label: "measure/Concurrency=7/3", Start: t0.Add(time.Hour), End: t0.Add(time.Hour + time.Second),
			Want: &Interval{Start: t0.Add(time.Hour + time.Second/4), End: t0.Add(time.Hour + time.Second)}},
	}
	for _, w := range want {
		if err := Append(dir, w); err != nil {
			t.Fatal(err)
		}
	}
	got, err := ReadIndex(dir)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("ReadIndex = %+v, %v; want %+v", got, err, want)
	}
	if a := Actors(got); !reflect.DeepEqual(a, []string{"alice", "bob"}) {
		t.Errorf("Actors = %v", a)
	}
	if d := Dir("alice"); d != "Alice_traces" {
		t.Errorf("Dir(alice) = %q", d)
	}
}

// The two cases issue 11 found: a 2 s window (two slices) that began
// 0.34 s before its 1.3 s iteration, and a 1 s window (one slice) that
// missed 0.3 s of a 1.3 s iteration.
func TestAlignment(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	iter := &Interval{Start: at(10), End: at(11.3)}
	tests := []struct {
		name     string
		w        Window
		want     Alignment
		wantText string
	}{
		{"early and long", Window{Start: at(9.66), End: at(11.66), Want: iter},
			Alignment{StartOffset: -0.34, EndOffset: 0.36, Missed: 0, Extra: 0.7, Covered: 1, Length: 1.3},
			"window -0.34 s / +0.36 s of the iteration's start / end: covers 100% of its 1.30 s, 0.70 s outside it"},
		{"one slice short", Window{Start: at(10.1), End: at(11.1), Want: iter},
			Alignment{StartOffset: 0.1, EndOffset: -0.2, Missed: 0.3, Extra: 0, Covered: 1 / 1.3, Length: 1.3},
			"window +0.10 s / -0.20 s of the iteration's start / end: covers 77% of its 1.30 s, 0.00 s outside it"},
		{"disjoint", Window{Start: at(12), End: at(13), Want: iter},
			Alignment{StartOffset: 2, EndOffset: 1.7, Missed: 1.3, Extra: 1, Covered: 0, Length: 1.3},
			"window +2.00 s / +1.70 s of the iteration's start / end: covers 0% of its 1.30 s, 1.00 s outside it"},
	}
	near := func(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
	for _, tt := range tests {
		a, ok := tt.w.Alignment()
		if !ok || !near(a.StartOffset, tt.want.StartOffset) || !near(a.EndOffset, tt.want.EndOffset) || !near(a.Missed, tt.want.Missed) ||
			!near(a.Extra, tt.want.Extra) || !near(a.Covered, tt.want.Covered) || !near(a.Length, tt.want.Length) {
			t.Errorf("%s: Alignment = %+v, %v; want %+v", tt.name, a, ok, tt.want)
		}
		if s := a.String(); s != tt.wantText {
			t.Errorf("%s: %q\nwant %q", tt.name, s, tt.wantText)
		}
	}
	if _, ok := (Window{Start: t0, End: at(2)}).Alignment(); ok {
		t.Error("a periodic window (no Want) has an alignment")
	}
}
