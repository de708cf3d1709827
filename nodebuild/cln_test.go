package nodebuild

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fakeCLNTree writes the two files clnFromSource looks for.
func fakeCLNTree(t *testing.T, dir string) {
	t.Helper()
	for name, body := range map[string]string{"configure": "#!/bin/sh\n", "lightningd/lightningd.c": "int main;\n", ".gitignore": "*.o\n"} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCLNFromSourceRefusesWhatIsNotATree(t *testing.T) {
	dir := t.TempDir()
	notTar := filepath.Join(dir, "notes.txt")
	os.WriteFile(notTar, []byte("x"), 0o644)
	for path, want := range map[string]string{
		filepath.Join(dir, "missing"):     "no such file or folder",
		filepath.Join(dir, "tree+opt=O3"): "belong to a node spec",
		notTar:                            "not a .tar.xz or .tar.gz",
		dir:                               "not a Core Lightning source tree (no configure)",
	} {
		_, err := Parse("", "cln@src:"+path)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: err %v, want one line with %q", path, err, want)
		}
	}
	fakeCLNTree(t, dir)
	s, err := Parse("", "cln@src:"+dir)
	if err != nil || s.Implementation != CLN || s.SourceDir != dir || s.Version != SourceVersion {
		t.Fatalf("%+v %v", s, err)
	}
	tarball := filepath.Join(t.TempDir(), "lightning-v26.06.6-src.tar.xz")
	os.WriteFile(tarball, []byte("x"), 0o644)
	if _, err := Parse("", "cln@src:"+tarball); err != nil {
		t.Errorf("tarball refused: %v", err)
	}
}

func TestConfigureArgs(t *testing.T) {
	for _, tt := range []struct {
		f    Flavour
		want string
	}{
		{Flavour{}, "--disable-rust"},
		{Flavour{COpt: "O3"}, "--disable-rust|COPTFLAGS=-O3"},
		// -march alone keeps CLN's own -Og rather than dropping to -O0.
		{Flavour{March: "native"}, "--disable-rust|COPTFLAGS=-Og -march=native"},
		{Flavour{COpt: "O2", FramePointers: true, Configure: []string{"--enable-static"}},
			"--disable-rust|COPTFLAGS=-O2|CDEBUGFLAGS=-std=gnu11 -g -fstack-protector-strong -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer|--enable-static"},
	} {
		if got := strings.Join(configureArgs(tt.f), "|"); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.f, got, tt.want)
		}
	}
}

func TestCLNVersionNames(t *testing.T) {
	ctx := context.Background()
	empty := t.TempDir()
	for source, want := range map[string]string{
		"/x/lightning-v26.06.6-src.tar.xz": "v26.06.6",
		"/x/lightning-v25.12rc1.tar.gz":    "v25.12rc1",
		"/x/clightning-v24.11":             "v24.11",
		"/x/mytree":                        "src",
	} {
		if got := clnVersion(ctx, source, empty); got != want {
			t.Errorf("%s: %q, want %q", source, got, want)
		}
	}
	withFile := t.TempDir()
	os.WriteFile(filepath.Join(withFile, ".version"), []byte("v26.06.6\n"), 0o644)
	if got := clnVersion(ctx, "/x/mytree", withFile); got != "v26.06.6" {
		t.Errorf(".version: %q", got)
	}
}

// In a git checkout, build outputs git ignores change neither the file
// list nor the key; an edit changes the key.
func TestCLNKeyFollowsTrackedFilesOnly(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	ctx := context.Background()
	dir := t.TempDir()
	fakeCLNTree(t, dir)
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "x"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	spec := Spec{Implementation: CLN, Version: SourceVersion, SourceDir: dir}
	key := func() string {
		k, err := clnKey(ctx, spec, "gcc 12")
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	k0 := key()
	os.WriteFile(filepath.Join(dir, "lightningd", "lightningd.o"), []byte("object"), 0o644)
	if k := key(); k != k0 {
		t.Error("an ignored build output changed the key")
	}
	files, _ := treeFiles(ctx, dir)
	if strings.Contains(strings.Join(files, " "), ".o") {
		t.Errorf("ignored file listed: %v", files)
	}
	os.WriteFile(filepath.Join(dir, "lightningd", "lightningd.c"), []byte("int main(void){}\n"), 0o644)
	if k := key(); k == k0 {
		t.Error("an uncommitted edit did not change the key")
	}
	spec.Flavour.COpt = "O3"
	if k := key(); k == k0 {
		t.Error("opt=O3 did not change the key")
	}
}

func TestCLNManifestVerifies(t *testing.T) {
	dir := t.TempDir()
	for _, rel := range []string{"bin/lightningd", "libexec/c-lightning/lightning_channeld", "share/man/x.1"} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755)
		os.WriteFile(filepath.Join(dir, rel), []byte(rel), 0o755)
	}
	m, err := clnManifest(context.Background(), Spec{Implementation: CLN, Version: SourceVersion, SourceDir: "/x.tar.xz"}, "k", "gcc", dir)
	if err != nil || len(m.SHA256) != 2 {
		t.Fatalf("%v %v", m.SHA256, err)
	}
	if err := verifyFiles(dir, m); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "libexec/c-lightning/lightning_channeld"), []byte("changed"), 0o755)
	if err := verifyFiles(dir, m); err == nil || !strings.Contains(err.Error(), "corrupt binary libexec/c-lightning/lightning_channeld") {
		t.Errorf("a changed subdaemon: %v", err)
	}
}
