package report

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/lnbench/lnbench/faults"
	"github.com/lnbench/lnbench/record"
	"github.com/lnbench/lnbench/record/result"
	"github.com/lnbench/lnbench/recovery"
)

// FaultsCSVName is the fault table in the artifacts folder (plots.R shades
// the throughput timeline from it).
const FaultsCSVName = "faults.csv"

// LoadFaults recomputes rep.Faults from dir's faults.jsonl (none when the
// file is missing). An unreadable stream is an analysis warning: the
// payment reports stand without it.
func LoadFaults(dir string, rep *Report, recs []result.Record) {
	fs, err := faults.Load(filepath.Join(dir, record.FaultsFile))
	if err != nil {
		rep.Faults = nil
		rep.AnalysisWarnings = append(rep.AnalysisWarnings, fmt.Sprintf("faults not analysed: %v", err))
		return
	}
	rep.Faults = recovery.Analyze(recs, fs, recovery.Default)
}

// FaultsTable is one row per injected fault with its recovery figures.
func FaultsTable(r Report) Table {
	t := Table{Header: []string{"Case", "Iteration", "Fault", "Start (s)", "Duration (s)", "Failed", "Stalled", "Aborted",
		"Before (payments/s)", "Recovery (s)", "Channels active (s)", "p50 before/during/after (ms)"}}
	for _, f := range r.Faults {
		start := fmt.Sprintf("%.1f", f.StartOffset)
		if f.Start.IsZero() {
			start = "not injected"
		}
		t.Rows = append(t.Rows, []string{f.Case, iterationCell(f.Iteration), f.Label(), start,
			optCell(f.Duration, "%.1f", "no end"), fmt.Sprint(f.Failed + f.Errored + f.TimedOut), optCell(f.Stalled, "%d", "NA"),
			fmt.Sprint(f.Aborted), optCell(f.BeforePerSec, "%.1f", "NA"), recoveryCell(f), channelsCell(f),
			strings.Join([]string{optCell(f.LatencyBefore.P50, "%.0f", "NA"), optCell(f.LatencyDuring.P50, "%.0f", "NA"), optCell(f.LatencyAfter.P50, "%.0f", "NA")}, "/")})
	}
	p := recovery.Default
	t.Legend = []string{
		"Fault      : kind, target and size of the fault (the spec as written is in faults.csv and summary.json)",
		"Iteration  : the measured iteration the fault began in (–: in the warm-up or between iterations)",
		"Start      : seconds since the case's first measured payment started (the throughput timeline's axis); Duration until the fault ended",
		"Failed     : payments in flight during the fault that failed, returned an RPC error or timed out; Aborted: stopped by the harness",
		"             (during: from its start until its end, or until a restarted node's channels were active again when later)",
		fmt.Sprintf("Stalled    : payments in flight during the fault that succeeded but took more than %g× what the fault predicts: the median before it,", p.StallFactor),
		"             plus for a delay 3 round trips of it per route hop on its target (faults.csv: PredictedAdded_ms)",
		fmt.Sprintf("Before     : successful payments/s in the %.0f s before the fault (less when the case started later)", p.Before.Seconds()),
		fmt.Sprintf("Recovery   : from the fault's end (a kill's start) to the start of the first %.0f s window (sliding by %.1f s) in which payments started after",
			p.Window.Seconds(), p.Step.Seconds()),
		fmt.Sprintf("             the end succeed at least at %.0f%% of Before (payments held up by the fault and finishing in a burst do not count)", 100*(1-p.Tolerance)),
		"Channels   : a restarted node's channels all active again, after the fault's end (and after its start)",
		fmt.Sprintf("p50        : median latency of successful payments in the %.0f s before, wholly during, and started in the %.0f s after the fault",
			p.Before.Seconds(), p.Before.Seconds()),
		"NA         : too few payments for the figure (see the notes)",
	}
	return t
}

// FaultNotes are the faults' warnings, each naming its fault.
func FaultNotes(r Report) []string {
	var out []string
	for _, f := range r.Faults {
		at := fmt.Sprintf(", %.1f s", f.StartOffset)
		if f.Start.IsZero() {
			at = ""
		}
		for _, w := range f.Warnings {
			out = append(out, fmt.Sprintf("%s (%s%s): %s", f.Label(), f.Case, at, w))
		}
	}
	return out
}

// CaseFaultLines describe the faults of one case, for its details.
func CaseFaultLines(r Report, caseID string) []string {
	var out []string
	for _, f := range r.Faults {
		if f.Case != caseID {
			continue
		}
		if f.Start.IsZero() {
			out = append(out, fmt.Sprintf("%s: %s", f.Label(), f.Error))
			continue
		}
		l := fmt.Sprintf("%s at %.1f s", f.Label(), f.StartOffset)
		if f.Duration != nil {
			l += fmt.Sprintf(" for %.1f s", *f.Duration)
		}
		l += fmt.Sprintf(" (iteration %s): %d failed, %s stalled, %d aborted; %s", iterationCell(f.Iteration),
			f.Failed+f.Errored+f.TimedOut, optCell(f.Stalled, "%d", "NA"), f.Aborted, recoveryText(f))
		if f.ChannelsAfterEnd != nil {
			l += fmt.Sprintf("; channels active %.1f s after", *f.ChannelsAfterEnd)
		}
		out = append(out, l)
	}
	return out
}

// faultsSection is the faults' recovery table, its legend and the faults' notes.
func faultsSection(r Report) Section {
	s := Section{Title: "Faults"}
	if len(r.Faults) == 0 {
		return s
	}
	t := FaultsTable(r)
	s.Blocks = []Block{tableBlock(t), {Legend: t.Legend}}
	if notes := FaultNotes(r); len(notes) > 0 {
		s.Blocks = append(s.Blocks, Block{Bullets: notes})
	}
	return s
}

func recoveryCell(f recovery.Fault) string {
	if f.RecoverySeconds != nil {
		return fmt.Sprintf("%.1f", *f.RecoverySeconds)
	}
	if f.Recovery == recovery.NotRecovered {
		return "not recovered"
	}
	return "NA"
}

func recoveryText(f recovery.Fault) string {
	if f.RecoverySeconds != nil {
		return fmt.Sprintf("throughput back within %.0f%% %.1f s after its end", 100*recovery.Default.Tolerance, *f.RecoverySeconds)
	}
	if f.Recovery == recovery.NotRecovered {
		return "throughput " + recovery.NotRecovered
	}
	return "recovery not measured"
}

func channelsCell(f recovery.Fault) string {
	switch {
	case f.ChannelsAfterEnd != nil:
		return fmt.Sprintf("%.1f (%.1f)", *f.ChannelsAfterEnd, *f.ChannelsAfterStart)
	case f.ChannelsAfterStart != nil:
		return fmt.Sprintf("NA (%.1f)", *f.ChannelsAfterStart)
	case f.Kind == faults.Restart:
		return "NA"
	}
	return ""
}

func iterationCell(i int) string {
	if i < 0 {
		return "–" // warm-up, or between iterations
	}
	return fmt.Sprint(i)
}

// optCell formats a figure that may be absent.
func optCell[T any](v *T, format, absent string) string {
	if v == nil {
		return absent
	}
	return fmt.Sprintf(format, *v)
}
