package buildset

import (
	"errors"
	"testing"

	"github.com/lnbench/lnbench/nodebuild"
)

// The backend and the report are told of the same builds: the binaries
// and image of each key, and each label's build with its image.
func TestSetGivesBackendAndReportTheSameBuilds(t *testing.T) {
	lnd := nodebuild.Result{Dir: "/cache/bin/lnd-a", Manifest: nodebuild.Manifest{Implementation: "lnd", Key: "a"}}
	cln := nodebuild.Result{Dir: "/cache/bin/cln-b", Manifest: nodebuild.Manifest{Implementation: nodebuild.CLN, Key: "b"}}
	s := Set{
		byLabel: map[string]nodebuild.Result{"base": lnd, "other": lnd, "c": cln},
		keys:    []string{"a", "b"},
		byKey:   map[string]nodebuild.Result{"a": lnd, "b": cln},
		images:  map[string]string{"a": "lnbench/lnd:1", "b": "lnbench/cln:2"},
		chain:   "a",
	}
	be := s.ForBackend()
	if be.Chain != "a" || be.BinDirs["a"] != "/cache/bin/lnd-a" || be.BinDirs["b"] != "/cache/bin/cln-b/bin" || be.Images["b"] != "lnbench/cln:2" {
		t.Errorf("for the backend: %+v", be)
	}
	rep := s.ForReport()
	if len(rep) != 3 || rep["other"].Image != "lnbench/lnd:1" || rep["c"].Manifest.Key != "b" {
		t.Errorf("for the report: %+v", rep)
	}
	if r, ok := s.Result("b"); !ok || r.Dir != cln.Dir || s.Chain() != "a" || len(s.Keys()) != 2 {
		t.Errorf("accessors: %v %v %q %v", r, ok, s.Chain(), s.Keys())
	}
	s.Images()["a"] = "changed"
	if s.images["a"] != "lnbench/lnd:1" {
		t.Error("Images hands out the set's own map")
	}
}

// A cached build that fails its manifest check is an error to report; one
// never built (no manifest) is built.
func TestBrokenCacheIsToldFromNeverBuilt(t *testing.T) {
	const at = "node binaries for lnd@v0.21.0-beta in /cache/bin/lnd-x: "
	for msg, want := range map[string]bool{
		at + "corrupt binary lnd (checksum differs from manifest)":            true,
		at + "missing binary lncli":                                           true,
		at + "open /cache/bin/lnd-x/manifest.json: no such file or directory": false,
	} {
		if got := brokenCache(errors.New(msg)); got != want {
			t.Errorf("brokenCache(%q) = %v, want %v", msg, got, want)
		}
	}
}
