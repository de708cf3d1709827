//go:build e2e

package e2e

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lnbench/lnbench/nodebuild"
)

// TestComposeInterruptImageBuild sends SIGINT while a node image is being
// built (a Dockerfile step with a nonce forces a new tag and a slow step
// the layer cache cannot answer): exit 130, "interrupted", no image under
// that tag, no build context left beside the binary cache, no docker
// build still running.
func TestComposeInterruptImageBuild(t *testing.T) {
	bin := composeSetup(t)
	images := filepath.Join(t.TempDir(), "images")
	if out, err := exec.Command("cp", "-r", filepath.Join(repoRoot(t), "images"), images).CombinedOutput(); err != nil {
		t.Fatalf("copying images/: %v\n%s", err, out)
	}
	nonce := make([]byte, 6)
	rand.Read(nonce)
	dockerfile := filepath.Join(images, "lnd", "Dockerfile")
	data, err := os.ReadFile(dockerfile)
	if err != nil {
		t.Fatal(err)
	}
	// A step of its own that Docker's layer cache cannot answer, long
	// enough for the interrupt to land inside the build.
	step := "RUN sleep 60 && echo " + hex.EncodeToString(nonce) + "\n"
	if err := os.WriteFile(dockerfile, append(data, []byte(step)...), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "images", "--images", images)
	cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
	out := interruptAfter(t, cmd, " FROM ", time.Second)
	m := regexp.MustCompile(`building (\S+) FROM `).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no image build in:\n%s", out)
	}
	tag := m[1]
	if strings.Contains(out, "built "+tag) {
		t.Fatalf("the build finished before the interrupt landed:\n%s", out)
	}
	t.Cleanup(func() { exec.Command("docker", "rmi", "-f", tag).Run() })
	if err := exec.Command("docker", "image", "inspect", tag).Run(); err == nil {
		t.Errorf("image %s exists after the build was interrupted:\n%s", tag, out)
	}
	if ctxs, _ := filepath.Glob(filepath.Join(nodebuild.DefaultCacheDir(), "bin", ".image-*")); len(ctxs) > 0 {
		t.Errorf("image build context left beside the cache: %v", ctxs)
	}
	if ps := processesMentioning("docker build"); len(ps) > 0 && strings.Contains(strings.Join(ps, "\n"), tag) {
		t.Errorf("docker build still running: %v", ps)
	}
}
