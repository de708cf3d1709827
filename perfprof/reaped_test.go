package perfprof

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

func TestUnsampledChildren(t *testing.T) {
	const period = int64(10101010) // 99 Hz
	sample := func(pid int) Sample {
		return Sample{Comm: "x", PID: pid, TID: pid, Period: uint64(period), Event: "cpu-clock:ppp", Frames: []Frame{{Sym: "f"}}}
	}
	samples := []Sample{sample(10), sample(11), sample(2), sample(99)}
	// 10 is askrene's child; 11 bcli's grandchild through 12; 99 nobody's.
	parents := map[int]int{10: 2, 11: 12, 12: 3, 13: 4}
	alive := map[int]bool{1: true, 2: true, 3: true, 4: true, 6: true}
	before := map[int]float64{1: 0, 2: 1.00, 3: 0.50, 5: 0, 6: 0.30}
	after := map[int]float64{1: 0, 2: 1.60, 3: 0.70, 4: 0.40, 5: 0.90, 6: 0.305}
	names := map[int]string{2: "cln-askrene", 3: "bcli"}
	got := map[int]int{}
	for _, s := range unsampledChildren(samples, parents, alive, before, after, period, 7.5, func(pid int) string { return names[pid] }) {
		if len(s.Frames) != 1 || s.Frames[0].Sym != UnsampledChildren || s.Comm != names[s.PID] || s.Time != 7.5 || s.Period != uint64(period) {
			t.Errorf("sample %+v", s)
		}
		got[s.PID]++
	}
	// askrene: 0.60 s reaped is 59.4 periods, one of them sampled (10);
	// bcli: 0.20 s is 19.8, one sampled (11, through 12). pid 1 reaped
	// nothing, 4 was not in the tree at the start, 5 is gone, 6's 5 ms
	// is under half a period.
	want := map[int]int{2: 58, 3: 19}
	if len(got) != len(want) || got[2] != want[2] || got[3] != want[3] {
		t.Errorf("unsampled samples by pid %v, want %v", got, want)
	}
	// More sampled than reaped (a child still a zombie): nothing, not negative.
	samples = []Sample{sample(10), sample(10), sample(10)}
	if s := unsampledChildren(samples, parents, alive, map[int]float64{2: 1}, map[int]float64{2: 1.01}, period, 0, func(int) string { return "" }); len(s) != 0 {
		t.Errorf("%d samples where perf saw more than was reaped", len(s))
	}
}

func TestReadReaped(t *testing.T) {
	root := t.TempDir()
	for pid, stat := range map[int]string{
		// pid (comm) state ppid … utime stime cutime cstime: 25 and 15 ticks reaped.
		7: "7 (cln askrene) S 1 7 7 0 -1 4194560 100 0 0 0 40 30 25 15 20 0 1 0 500 1000 100",
		8: "8 (short) S",
	} {
		dir := filepath.Join(root, strconv.Itoa(pid))
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "stat"), []byte(stat), 0o644)
	}
	got := readReaped(root, []int{7, 8, 9})
	if len(got) != 1 || got[7] != 0.40 {
		t.Errorf("readReaped = %v, want 7: 0.40 (8 is torn, 9 gone)", got)
	}
}
