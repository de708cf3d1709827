package strictyaml

import (
	"errors"
	"strings"
	"testing"
)

type inner struct {
	Every string `yaml:"every"`
	Slice string `yaml:"slice"`
}

type outer struct {
	Name     string   `yaml:"name"`
	Count    int      `yaml:"count"`
	Sampling inner    `yaml:"sampling"`
	Sweep    *inner   `yaml:"sweep"`
	List     []inner  `yaml:"list"`
	Flags    []string `yaml:"flags,omitempty"`
}

func TestDecode(t *testing.T) {
	tests := []struct {
		doc     string
		wantErr string // "" means it decodes
	}{
		{"name: x\ncount: 3\n", ""},
		{"", "empty"},
		{"# only a comment\n", "empty"},
		{"name: x\nbogus: 1\n", `line 2: unknown key "bogus"; valid keys here: count, flags, list, name, sampling, sweep`},
		{"sampling:\n  evry: 5s\n", `line 2: unknown key "evry"; valid keys here: every, slice`},
		{"sweep:\n  x: 1\n", `unknown key "x"; valid keys here: every, slice`},
		{"list:\n  - {nope: 1}\n", `unknown key "nope"; valid keys here: every, slice`},
		{"a: 1\nb: 2\n", "(and 1 more problem(s))"},
		{"count: many\n", "cannot unmarshal"},
	}
	for _, tt := range tests {
		var v outer
		err := Decode([]byte(tt.doc), &v)
		if tt.wantErr == "" {
			if err != nil {
				t.Errorf("%q: %v", tt.doc, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%q: err %v, want containing %q", tt.doc, err, tt.wantErr)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error is not one line: %q", tt.doc, err)
		}
	}
	if err := Decode(nil, &outer{}); !errors.Is(err, ErrEmpty) {
		t.Errorf("empty document: %v, want ErrEmpty", err)
	}
}

func TestDecodeKeepsDefaults(t *testing.T) {
	v := outer{Name: "default", Count: 7, Sampling: inner{Every: "300s", Slice: "1s"}}
	if err := Decode([]byte("count: 3\nsampling:\n  every: 5s\n"), &v); err != nil {
		t.Fatal(err)
	}
	if v.Name != "default" || v.Count != 3 || v.Sampling.Every != "5s" || v.Sampling.Slice != "1s" {
		t.Fatalf("defaults not kept: %+v", v)
	}
}

func TestTopLevelKeys(t *testing.T) {
	if got := strings.Join(TopLevelKeys([]byte("nodes: []\nchannels: []\n")), ","); got != "nodes,channels" {
		t.Errorf("keys %q", got)
	}
	if TopLevelKeys([]byte("- 1\n")) != nil || TopLevelKeys(nil) != nil {
		t.Errorf("a non-mapping document has no keys")
	}
}
