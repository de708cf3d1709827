// Package buildset ensures the builds a scenario needs before it runs:
// each distinct node build once (found in the cache or built, a source
// tree's older builds removed), the build btcd comes from, and one node
// image per build for the backends that run images. What it finds, builds
// and removes it says on a log; the command layer only chooses the folders
// and prints.
package buildset

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"strings"
	"time"

	"github.com/lnbench/lnbench/backend/driver"
	"github.com/lnbench/lnbench/gitrev"
	"github.com/lnbench/lnbench/nodebuild"
	"github.com/lnbench/lnbench/nodespec"
	"github.com/lnbench/lnbench/pgo"
	"github.com/lnbench/lnbench/runner"
	"github.com/lnbench/lnbench/scenario"
)

// Set is the ensured builds of a scenario's node specs.
type Set struct {
	byLabel map[string]nodebuild.Result
	keys    []string                    // distinct build keys, first use first
	byKey   map[string]nodebuild.Result // one entry per distinct build
	images  map[string]string           // compose: build key → node image
	chain   string                      // build key btcd comes from: the baseline (or first) spec's
}

// Keys are the distinct build keys, in the order the specs first use them,
// and last the build btcd comes from when no spec builds LND.
func (s Set) Keys() []string { return append([]string(nil), s.keys...) }

// Result is the build with key, and whether the set holds it.
func (s Set) Result(key string) (nodebuild.Result, bool) {
	r, ok := s.byKey[key]
	return r, ok
}

// Chain is the key of the build btcd comes from.
func (s Set) Chain() string { return s.chain }

// Images maps each build key to its node image, once EnsureImages made
// them; empty before.
func (s Set) Images() map[string]string { return maps.Clone(s.images) }

// BuildSpec is the nodebuild spec of a node spec, its knobs checked. A
// +pgo= naming an earlier run's artifacts folder becomes the profile merged
// from all its profiling windows (stored in the cache by content).
func BuildSpec(imagesDir, cache string, sp nodespec.Spec) (nodebuild.Spec, error) {
	b, err := nodebuild.Parse(imagesDir, sp.Build)
	if err != nil {
		return b, fmt.Errorf("node spec %s: %v", sp.Label, err)
	}
	b.Flavour = nodebuild.Flavour(sp.Flavour)
	if b.Flavour.PGO != "" {
		if b.Flavour.PGO, _, err = pgo.Resolve(cache, b.Flavour.PGO, nil); err != nil {
			return b, fmt.Errorf("node spec %s: %v", sp.Label, err)
		}
	}
	if err := b.Flavour.Validate(); err != nil {
		return b, fmt.Errorf("node spec %s: %v", sp.Label, err)
	}
	return b, nil
}

// Ensure builds (or finds cached) every build the scenario needs, each
// distinct build once, and records the keys in the scenario so that every
// topology node carries its build's key.
func Ensure(ctx context.Context, imagesDir, cache string, s *scenario.Scenario, log io.Writer) (Set, error) {
	build := func(spec nodebuild.Spec) (nodebuild.Result, error) { return EnsureBuild(ctx, cache, spec, log) }
	return resolve(ctx, imagesDir, cache, s, finder{nodebuild.Locate, build}, log)
}

// Cached is Ensure without building: the builds the cache holds, for a
// plan (--plan) that must build nothing. missing names the builds the
// cache lacks (btcd's LND release among them when no spec is LND's); with
// any missing, the set is incomplete and only good for saying so.
func Cached(ctx context.Context, imagesDir, cache string, s *scenario.Scenario) (set Set, missing []string, err error) {
	build := func(spec nodebuild.Spec) (nodebuild.Result, error) {
		missing = append(missing, spec.String())
		return nodebuild.Result{}, errNotCached
	}
	// Peek: a plan is no use of a build (pruning goes by last use).
	set, err = resolve(ctx, imagesDir, cache, s, finder{nodebuild.Peek, build}, io.Discard)
	if errors.Is(err, errNotCached) {
		err = nil
	}
	return set, missing, err
}

// errNotCached is Cached's build: it builds nothing.
var errNotCached = errors.New("not in the cache")

// finder finds a build in the cache (locate), else makes it (build).
type finder struct {
	locate func(cache string, spec nodebuild.Spec) (nodebuild.Result, error)
	build  func(nodebuild.Spec) (nodebuild.Result, error)
}

// resolve finds each distinct build in the cache, and those it lacks by
// build; Cached's build refuses, and resolve then goes on without them.
func resolve(ctx context.Context, imagesDir, cache string, s *scenario.Scenario, find finder, log io.Writer) (Set, error) {
	out := Set{byLabel: map[string]nodebuild.Result{}, byKey: map[string]nodebuild.Result{}}
	specs, err := s.AllSpecs()
	if err != nil {
		return out, err
	}
	// Every spec resolves before the first (possibly long) build starts.
	var bspecs []nodebuild.Spec
	dirtySaid := map[string]bool{}
	for _, sp := range specs {
		b, err := BuildSpec(imagesDir, cache, sp)
		if err != nil {
			return out, err
		}
		bspecs = append(bspecs, b)
		if b.IsRevision() && !dirtySaid[b.SourceDir] && gitrev.Dirty(ctx, b.SourceDir) {
			dirtySaid[b.SourceDir] = true // once per clone, however many of its revisions
			fmt.Fprintf(log, "node %s: %s has uncommitted changes; #%s builds commit %s as committed, without them\n", sp.Label, b.SourceDir, b.Revision, b.Commit.Short)
		}
	}
	s.BuildKeys = map[string]string{}
	var notCached error
	for i, sp := range specs {
		start := time.Now()
		r, err := find.locate(cache, bspecs[i])
		if err != nil && brokenCache(err) {
			return out, fmt.Errorf("node spec %s: %w", sp.Label, err)
		}
		if err != nil {
			r, err = find.build(bspecs[i])
		}
		if errors.Is(err, errNotCached) {
			notCached = err
			continue
		}
		if err != nil {
			return out, fmt.Errorf("node spec %s: %w", sp.Label, err)
		}
		key := r.Manifest.Key
		if _, seen := out.byKey[key]; !seen {
			state := "cached"
			if r.Built {
				state = "built"
			}
			fmt.Fprintf(log, "node %s: %s %s in %.1fs (key %s)\n", sp.Label, bspecs[i], state, time.Since(start).Seconds(), key)
			out.keys = append(out.keys, key)
			out.byKey[key] = r
		}
		out.byLabel[sp.Label] = r
		s.BuildKeys[sp.Label] = key
	}
	if notCached != nil {
		return out, notCached
	}
	out.chain = s.BuildKeys[s.BaselineSpec().Label]
	if out.byKey[out.chain].Manifest.Implementation != "lnd" {
		return out, out.ensureChainBuild(imagesDir, cache, find, log)
	}
	return out, nil
}

// ensureChainBuild picks the build btcd comes from when the baseline is
// not LND (a CLN build has no btcd): the first LND build of the run, else
// the default LND release, built like any other and imaged with them.
func (s *Set) ensureChainBuild(imagesDir, cache string, find finder, log io.Writer) error {
	for _, key := range s.keys {
		if s.byKey[key].Manifest.Implementation == "lnd" {
			s.chain = key
			return nil
		}
	}
	text := scenario.DefaultNode.Implementation + "@" + scenario.DefaultNode.Version
	spec, err := nodebuild.Parse(imagesDir, text)
	if err != nil {
		return fmt.Errorf("btcd for a network without LND nodes comes from %s: %v", text, err)
	}
	r, err := find.locate(cache, spec)
	if err != nil {
		if r, err = find.build(spec); err != nil {
			return fmt.Errorf("btcd (from %s): %w", text, err)
		}
	}
	fmt.Fprintf(log, "btcd: from %s (key %s)\n", text, r.Manifest.Key)
	s.chain = r.Manifest.Key
	s.keys = append(s.keys, s.chain)
	s.byKey[s.chain] = r
	return nil
}

// EnsureImages makes one node image per distinct build, with the
// Dockerfiles of imagesDir, for the backends that run images.
func (s *Set) EnsureImages(ctx context.Context, imagesDir string, log io.Writer) error {
	s.images = map[string]string{}
	for _, key := range s.keys {
		tag, err := ensureImagesTimed(ctx, imagesDir, s.byKey[key], log)
		if err != nil {
			return err
		}
		s.images[key] = tag
	}
	return nil
}

// binDirs maps each build key to its binaries (local backend).
func (s Set) binDirs() map[string]string {
	out := map[string]string{}
	for key, r := range s.byKey {
		out[key] = r.BinDir()
	}
	return out
}

// ForBackend is what the backend is given of the builds.
func (s Set) ForBackend() driver.Builds {
	return driver.Builds{BinDirs: s.binDirs(), Images: s.images, Chain: s.chain}
}

// ForReport is each spec's build, by label, for the report.
func (s Set) ForReport() map[string]runner.NodeBuild {
	out := map[string]runner.NodeBuild{}
	for label, r := range s.byLabel {
		out[label] = runner.NodeBuild{Manifest: r.Manifest, Image: s.images[r.Manifest.Key]}
	}
	return out
}

// brokenCache tells a cached build that fails its manifest check (a
// binary missing or changed) from one never built: the first is reported
// with its fix rather than silently built over.
func brokenCache(locateErr error) bool {
	msg := locateErr.Error()
	return strings.Contains(msg, "corrupt") || strings.Contains(msg, "missing binary")
}
