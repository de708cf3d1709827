package nodebuild

import (
	"context"
	"path/filepath"
	"testing"
)

// A merged profile's origin goes into the manifest but not into the key:
// the same profile from a copied run folder is the same build.
func TestManifestRecordsWhereTheProfileCameFrom(t *testing.T) {
	spec := releaseModule(t)
	spec.Flavour.PGO = filepath.Join(t.TempDir(), "abc.pgo")
	writeProfile(t, spec.Flavour.PGO, 1)
	out := t.TempDir()
	for _, n := range binaryNames() {
		write(t, filepath.Join(out, n), "binary "+n)
	}
	m, err := manifestFor(context.Background(), spec, "k", "go1.99.0", out)
	if err != nil || m.PGOFrom != "" {
		t.Fatalf("hand-made profile: PGOFrom %q, %v; want none", m.PGOFrom, err)
	}
	before := mustKey(t, spec, "go1.99.0")
	write(t, PGOOriginFile(spec.Flavour.PGO), "run 20261122-x: 3 windows of alice, bob, 16 samples\n")
	if m, _ = manifestFor(context.Background(), spec, "k", "go1.99.0", out); m.PGOFrom != "run 20261122-x: 3 windows of alice, bob, 16 samples" {
		t.Errorf("PGOFrom = %q, want the origin file's line", m.PGOFrom)
	}
	if mustKey(t, spec, "go1.99.0") != before {
		t.Error("the origin file changed the build key")
	}
}
