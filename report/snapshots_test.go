package report

import (
	"reflect"
	"testing"
	"time"

	"github.com/lnbench/lnbench/record"
)

func TestSnapshotLinesOnePerSnapshot(t *testing.T) {
	made := time.Date(2026, 11, 28, 21, 0, 0, 0, time.UTC)
	got := snapshotLines([]record.NetworkSnapshot{
		{Network: "launch1", Key: "net-aa", Made: made, By: "lnbench 0123", Bytes: 3 << 20, MadeByThisRun: true},
		{Network: "launch2", Key: "net-aa", Made: made, By: "lnbench 0123", Bytes: 3 << 20},
		{Network: "launch1-patched", Key: "net-bb", Made: made, By: "lnbench 0123", Bytes: 512 << 10},
	})
	want := []string{
		"Networks: 2 restored from snapshot net-aa (made by this run, 3.0 MiB)",
		"Networks: 1 restored from snapshot net-bb (made 2026-11-28 21:00 UTC by lnbench 0123, 512 KiB)",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if snapshotLines(nil) != nil {
		t.Error("lines for a run without snapshots")
	}
}
