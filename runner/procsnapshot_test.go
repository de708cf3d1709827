package runner

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/lnbench/lnbench/usage"
)

func TestProcSnapshotFakeProc(t *testing.T) {
	root := t.TempDir()
	write := func(pid, cmdline, status, stat string) {
		d := filepath.Join(root, pid)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, body := range map[string]string{"cmdline": cmdline, "status": status, "stat": stat} {
			if err := os.WriteFile(filepath.Join(d, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	status := "Name:\tlnd\nVmHWM:\t  300000 kB\nVmRSS:\t  100000 kB\n"
	// utime 250 ticks, stime 50 ticks; the name holds a space and a ')'.
	stat := "42 (ln d)) S 1 42 42 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 12 0 100 0 0"
	write("42", "/bin/lnd\x00--lnddir=/run/x/alice\x00--rpclisten=127.0.0.1:1\x00", status, stat)
	write("43", "/bin/btcd\x00--datadir=/run/x/btcd/data\x00", "VmHWM:\t 2048 kB\nVmRSS:\t 1024 kB\n", "43 (btcd) S 1 43 43 0 -1 0 0 0 0 0 100 0 0 0 20 0 1 0 1 0 0")
	write("44", "/bin/lnd\x00--lnddir=/run/other/bob\x00", status, stat) // another run
	write("self", "", "", "")                                             // not a pid
	got, err := procSnapshot(root, "/run/x", time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("samples %+v, want alice and btcd", got)
	}
	byActor := map[string]usage.Sample{}
	for _, s := range got {
		byActor[s.Actor] = s
	}
	a, b := byActor["alice"], byActor["btcd"]
	if a.Role != usage.RoleNode || a.RSSBytes != 100000*1024 || a.RSSPeakBytes != 300000*1024 || a.CPUUserSeconds != 2.5 || a.CPUSysSeconds != 0.5 {
		t.Errorf("alice %+v", a)
	}
	if b.Role != usage.RoleChain || b.RSSBytes != 1024*1024 || b.CPUSeconds() != 1 {
		t.Errorf("btcd %+v", b)
	}
}

// TestProcSnapshotRealProcess reads a real child process from /proc.
func TestProcSnapshotRealProcess(t *testing.T) {
	work := t.TempDir()
	// sh -c takes the next argument as $0: the data dir rides in argv.
	cmd := exec.Command("/bin/sh", "-c", "sleep 30; true", "--lnddir="+filepath.Join(work, "carol"))
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	var got []usage.Sample
	for range 50 {
		var err error
		if got, err = procSnapshot("/proc", work, time.Now()); err != nil {
			t.Fatal(err)
		}
		if len(got) > 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(got) != 1 || got[0].Actor != "carol" || got[0].RSSBytes <= 0 || got[0].RSSPeakBytes < got[0].RSSBytes {
		t.Errorf("samples %+v", got)
	}
}
