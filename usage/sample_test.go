package usage

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestWriteRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	in := Sample{Time: time.Unix(10, 0).UTC(), Network: "n", Case: "c", Phase: "measure", Iteration: 2, Actor: "bob", Role: RoleNode,
		Source: SourceCgroupV1, CPUUserSeconds: 1.5, CPUSysSeconds: 0.5, Syncs: 7, SyncsCounted: true}
	if err := w.Write(in); err != nil {
		t.Fatal(err)
	}
	w.Close()
	got, err := Load(path)
	if err != nil || len(got) != 1 || got[0] != in || got[0].CPUSeconds() != 2 {
		t.Fatalf("got %+v, %v", got, err)
	}
}

func TestReadTornLastLine(t *testing.T) {
	got, err := Read(strings.NewReader(`{"actor":"a"}` + "\n" + `{"actor":"b","cpu_u`))
	if err != nil || len(got) != 1 {
		t.Fatalf("torn last line: %v %v", got, err)
	}
	if _, err := Read(strings.NewReader(`{"actor":` + "\n" + `{"actor":"b"}` + "\n")); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Fatalf("bad middle line: %v", err)
	}
}
