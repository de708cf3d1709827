package testsupport

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Git runs git in dir for a test, with a fixed identity and none of the
// user's configuration, and returns its trimmed output; it fails the test
// on an error, and skips it where git is not installed.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	// protocol.file.allow: submodules added from a local path.
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "protocol.file.allow=always"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=lnbench test", "GIT_AUTHOR_EMAIL=test@example.invalid",
		"GIT_COMMITTER_NAME=lnbench test", "GIT_COMMITTER_EMAIL=test@example.invalid", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}
