package perfprof

import "strconv"

// UnsampledChildren is the frame standing for CPU that a tree's
// short-lived children used and perf could not sample: each new thread
// starts a fresh sampling period (10.1 ms at 99 Hz), so a process that
// lives under one is rarely seen. Measured on a CLN payer (c=4, 10 s):
// askrene forked 180 route-finding children of about 5 ms each and bcli
// 12 bitcoin-cli calls, 1.09 CPU s in all (perf stat), none of it in the
// samples. Their CPU is read from their parents' cutime and cstime in
// /proc (the children they waited for), so the profile's total stays the
// tree's CPU; the frame has no stack below it.
const UnsampledChildren = "[short-lived children, not sampled]"

// readReaped reads, for each pid, the CPU seconds of the children it has
// waited for (cutime + cstime, fields 16 and 17 of /proc/PID/stat). A
// process gone meanwhile is left out.
func readReaped(procRoot string, pids []int) map[int]float64 {
	out := make(map[int]float64, len(pids))
	for _, pid := range pids {
		_, f, ok := statFields(procRoot, pid)
		if !ok || len(f) < 15 {
			continue
		}
		cu, err1 := strconv.ParseFloat(f[13], 64)
		cs, err2 := strconv.ParseFloat(f[14], 64)
		if err1 == nil && err2 == nil {
			out[pid] = (cu + cs) / 100 // USER_HZ
		}
	}
	return out
}

// unsampledChildren returns samples (UnsampledChildren frames, one
// period each) for the CPU that each process in alive spent in the
// children it reaped over a profile (before and after: readReaped at its
// start and end), less what perf did sample of those children. A child is
// the process's through parents (its parent, or the parent's parent…,
// exited); samples of children still alive are theirs, not yet in the
// parent's counter. period is one sample's nanoseconds; at is the
// samples' time; name gives a pid's comm.
func unsampledChildren(samples []Sample, parents map[int]int, alive map[int]bool, before, after map[int]float64, period int64, at float64, name func(int) string) []Sample {
	ancestor := func(pid int) int {
		for range 64 { // a chain this long is a loop in bad input
			p, ok := parents[pid]
			if !ok {
				return 0
			}
			if alive[p] {
				return p
			}
			pid = p
		}
		return 0
	}
	sampled := map[int]int64{} // ns of exited children's samples, by living ancestor
	for _, s := range samples {
		if alive[s.PID] {
			continue
		}
		if a := ancestor(s.PID); a != 0 {
			ns := period
			if cpuClock(s.Event) && s.Period > 0 {
				ns = int64(s.Period)
			}
			sampled[a] += ns
		}
	}
	var out []Sample
	for pid, end := range after {
		start, seen := before[pid]
		if !seen || !alive[pid] {
			continue // not in the tree at the start (its counter began elsewhere) or gone
		}
		missed := int64((end-start)*1e9) - sampled[pid]
		for n := (missed + period/2) / period; n > 0; n-- {
			out = append(out, Sample{Comm: name(pid), PID: pid, TID: pid, Time: at, Period: uint64(period),
				Event: "cpu-clock", Frames: []Frame{{Sym: UnsampledChildren, DSO: "[unsampled]"}}})
		}
	}
	return out
}
