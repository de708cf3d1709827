package runner

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// burnHarnessCPU hashes until d of wall time has passed, so the profile
// has samples in a function the test can name.
func burnHarnessCPU(d time.Duration) byte {
	sum := sha256.Sum256(nil)
	for end := time.Now().Add(d); time.Now().Before(end); {
		for i := 0; i < 1000; i++ {
			sum = sha256.Sum256(sum[:])
		}
	}
	return sum[0]
}

func TestHarnessProfileWritesProfileAndTop(t *testing.T) {
	dir := t.TempDir()
	stop, err := startHarnessProfile(dir)
	if err != nil {
		t.Fatal(err)
	}
	burnHarnessCPU(400 * time.Millisecond)
	note, err := stop()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(note, HarnessProfileName) || !strings.Contains(note, HarnessProfileTopName) {
		t.Errorf("note %q names neither file", note)
	}
	if fi, err := os.Stat(filepath.Join(dir, HarnessProfileName)); err != nil || fi.Size() == 0 {
		t.Fatalf("profile: %v (%v)", fi, err)
	}
	top, err := os.ReadFile(filepath.Join(dir, HarnessProfileTopName))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(top), "burnHarnessCPU") {
		t.Errorf("top functions miss the burner:\n%s", top)
	}
}

func TestHarnessProfileRefusesMissingFolder(t *testing.T) {
	if _, err := startHarnessProfile(filepath.Join(t.TempDir(), "gone")); err == nil {
		t.Fatal("a profile into a missing folder started")
	}
}
