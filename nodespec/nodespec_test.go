package nodespec

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	abs, _ := filepath.Abs("../lnd")
	tests := []struct {
		text, build, label, profile, db, goamd64 string
	}{
		{"lnd@v0.21.0-beta", "lnd@v0.21.0-beta", "v0.21.0-beta", "", "", ""},
		{"lnd@v0.20.2-beta+profile=bottlepay+db=sqlite-native", "lnd@v0.20.2-beta", "v0.20.2-beta+bottlepay+sqlite-native", "bottlepay", "sqlite-native", ""},
		{"lnd@src:../lnd+goamd64=v3", "lnd@src:" + abs, "src+goamd64v3", "", "", "v3"},
		{" lnd@v0.21.0-beta+db=sqlite ", "lnd@v0.21.0-beta", "v0.21.0-beta+sqlite", "", "sqlite", ""},
		{"lnd@src:../lnd#v0.20.0-beta+goamd64=v3", "lnd@src:" + abs + "#v0.20.0-beta", "src-v0.20.0-beta+goamd64v3", "", "", "v3"},
		{"lnd@src:../lnd#origin/main~2", "lnd@src:" + abs + "#origin/main~2", "src-origin-main-2", "", "", ""},
	}
	for _, tt := range tests {
		s, err := Parse(tt.text)
		if err != nil {
			t.Fatalf("%s: %v", tt.text, err)
		}
		if s.Build != tt.build || s.Label != tt.label || s.Profile != tt.profile || s.DB != tt.db || s.Flavour.GOAMD64 != tt.goamd64 {
			t.Errorf("%s: got %+v", tt.text, s)
		}
		back, err := Parse(s.Text())
		if err != nil || back.Text() != s.Text() || back.Label != s.Label {
			t.Errorf("%s: Text %q does not read back: %+v %v", tt.text, s.Text(), back, err)
		}
	}
}

func TestParseFootprint(t *testing.T) {
	s, err := Parse("lnd@v0.21.0-beta+profile=default+footprint=small")
	if err != nil || s.Footprint != FootprintSmall || s.Label != "v0.21.0-beta+default+small" {
		t.Fatalf("%+v %v", s, err)
	}
	back, err := Parse(s.Text())
	if err != nil || back.Footprint != FootprintSmall || back.Text() != s.Text() {
		t.Errorf("Text %q reads back as %+v (%v)", s.Text(), back, err)
	}
	if d, _ := Parse("lnd@v0.21.0-beta+footprint=default"); d.Label != "v0.21.0-beta" {
		t.Errorf("the default footprint changes the label: %q", d.Label)
	}
}

func TestParseGCFlagsKeepPlus(t *testing.T) {
	s, err := Parse("lnd@v0.21.0-beta+gcflags=all=-d=a+b+tags=x,y")
	if err != nil || s.Flavour.GCFlags != "all=-d=a+b" || strings.Join(s.Flavour.Tags, ",") != "x,y" {
		t.Fatalf("%+v %v", s, err)
	}
}

func TestParseRefusesWithAFix(t *testing.T) {
	for text, want := range map[string]string{
		"v0.21.0-beta":                    "use IMPL@VERSION",
		"lnd@src:":                        "src: needs a path",
		"lnd@src:../lnd#":                 "'#' needs a git revision",
		"lnd@src:#HEAD":                   "src: needs a path before #HEAD",
		"lnd@src:../a#b#c":                "more than one '#'",
		"lnd@src:../lnd#--all":            "name a commit, tag or branch",
		"lnd@v0.21.0-beta+profile=fast":   `profile "fast": use one of default, tuned, bottlepay`,
		"lnd@v0.21.0-beta+db=mysql":       `db "mysql": use one of bbolt, sqlite, sqlite-native, postgres`,
		"lnd@v0.21.0-beta+footprint=tiny": `footprint "tiny": use one of default, small`,
		"lnd@v0.21.0-beta+goamd64=v9":     "goamd64",
		"lnd@v0.21.0-beta+profile=":       "give a value",
	} {
		if _, err := Parse(text); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err %v, want %q", text, err, want)
		}
	}
	if err := ValidateLabel("a/b"); err == nil {
		t.Error("a label with '/' accepted")
	}
}

func TestSourceDir(t *testing.T) {
	for build, want := range map[string]string{"lnd@src:/home/me/lnd": "/home/me/lnd", "lnd@v0.21.0-beta": ""} {
		if got := (Spec{Build: build}).SourceDir(); got != want {
			t.Errorf("SourceDir of %s = %q, want %q", build, got, want)
		}
	}
}

func TestParseCLN(t *testing.T) {
	abs, _ := filepath.Abs("../lightning")
	s, err := Parse("cln@src:../lightning+opt=-O3+march=native+fp=on+configure=--enable-static,--disable-valgrind")
	if err != nil {
		t.Fatal(err)
	}
	f := s.Flavour
	if s.Build != "cln@src:"+abs || f.COpt != "O3" || f.March != "native" || !f.FramePointers || strings.Join(f.Configure, " ") != "--enable-static --disable-valgrind" {
		t.Fatalf("%+v", s)
	}
	if s.Label != "src+O3+march-native+fp+configure" {
		t.Errorf("label %q", s.Label)
	}
	back, err := Parse(s.Text())
	if err != nil || back.Text() != s.Text() {
		t.Errorf("Text %q reads back as %+v (%v)", s.Text(), back, err)
	}
}

func TestParseRefusesKnobsOfTheOtherBuild(t *testing.T) {
	for text, want := range map[string]string{
		"cln@src:/x+goamd64=v3":      "goamd64: a Go build knob, and CLN is built with make",
		"cln@src:/x+pgo=cpu.pprof":   "pgo: a Go build knob",
		"lnd@v0.21.0-beta+opt=O3":    "opt: a C build knob",
		"cln@src:/x+opt=O9":          `opt "O9": use one of`,
		"cln@src:/x+fp=maybe":        "fp=on or fp=off",
		"cln@src:/x+configure=debug": "give ./configure options",
		"cln@src:/x+march=a b":       "march",
	} {
		if _, err := Parse(text); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err %v, want %q", text, err, want)
		}
	}
}

func TestRevision(t *testing.T) {
	abs, _ := filepath.Abs("../lnd")
	s, err := Parse("lnd@src:../lnd#abc1234+profile=tuned")
	if err != nil {
		t.Fatal(err)
	}
	if s.SourceDir() != abs || s.Revision() != "abc1234" || !s.IsSource() {
		t.Fatalf("dir %q rev %q", s.SourceDir(), s.Revision())
	}
	other := s.WithRevision("v0.20.0-beta")
	if other.Revision() != "v0.20.0-beta" || other.Profile != "tuned" || other.Label != "src-v0.20.0-beta+tuned" {
		t.Fatalf("WithRevision = %+v", other)
	}
	if tree := s.WithRevision(""); tree.Revision() != "" || tree.Build != "lnd@src:"+abs {
		t.Fatalf("WithRevision(\"\") = %+v", tree)
	}
	if r, _ := Parse("lnd@v0.21.0-beta"); r.Revision() != "" {
		t.Fatal("a release has a revision")
	}
}

func TestLightStart(t *testing.T) {
	for text, want := range map[string]bool{
		"lnd@v0.21.0-beta": false,
		"lnd@v0.21.0-beta+tags=lowscrypt+footprint=small":   true,
		"cln@src:/tmp/lightning-v26.06.6-src.tar.xz+opt=O3": false,
	} {
		s, err := Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.LightStart(); got != want {
			t.Errorf("%s: light start %v, want %v", text, got, want)
		}
	}
}
