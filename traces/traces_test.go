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
		{Actor: "bob", Label: "measure/Concurrency=7/3", Start: t0.Add(time.Hour), End: t0.Add(time.Hour + time.Second)},
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
