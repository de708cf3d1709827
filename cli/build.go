package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/lnbench/lnbench/buildset"
	"github.com/lnbench/lnbench/imagebuild"
	"github.com/lnbench/lnbench/internal/runs"
	"github.com/lnbench/lnbench/nodebuild"
	"github.com/lnbench/lnbench/pgo"
	"github.com/lnbench/lnbench/scenario"
)

type buildFlags struct {
	images, cache string
	versions      []string
	flavour       nodebuild.Flavour
	list, prune   bool
	unusedDays    int
	addVersion    string
	dryRun        bool
	scenario      string
	nodes         []string
	pgoFrom       string
	pgoActors     []string
}

func buildCmd(stdout, stderr io.Writer) *cobra.Command {
	var f buildFlags
	cmd := &cobra.Command{
		Use:   "build",
		Short: "Build static node binaries (lnd, lncli, btcd, btcctl) into the cache; does nothing when current",
		Long: "Build node binaries into the cache, keyed by content: a release folder\n" +
			"(--version lnd@v0.21.0-beta), or a local source tree with uncommitted edits\n" +
			"(--version lnd@src:../lnd, built through a generated module that replaces LND\n" +
			"with the tree). --pgo, --goamd64, --gcflags, --ldflags and --tags make a\n" +
			"flavour; any change of source, toolchain or knob is a new build, nothing else is.\n" +
			"--pgo-from DIR merges the profiling windows of an earlier run (all its nodes, or\n" +
			"--pgo-actors) into one profile in the cache and builds with it.\n\n" +
			"  --list                     cached builds: key, size, last use, node images, what they were built from,\n" +
			"                             and which builds of a source tree a newer build superseded\n" +
			"  --prune [--unused-days N]  remove builds not used for N days (default 30) and superseded\n" +
			"                             source builds, with their node images, except the current builds\n" +
			"                             of the --version specs and builds a live run may use\n" +
			"A source tree's build removes the older builds of that tree and flavour (say which;\n" +
			"" + buildset.KeepOldBuildsEnv + "=1 keeps them).\n" +
			"  --add-version VERSION      add a release folder images/lnd/VERSION (fresh go.mod,\n" +
			"                             go get lnd@VERSION, go mod tidy)\n" +
			"  --scenario FILE, --node SPEC  build what a scenario (or node spec) needs;\n" +
			"                             lnbench run does this by itself; without --version,\n" +
			"                             " + DefaultScenarioFile + " when present",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch {
			case f.list:
				return listBuilds(cmd.Context(), stdout, f.cache)
			case f.addVersion != "":
				return addVersion(cmd, stdout, stderr, f)
			}
			if err := resolvePGO(stdout, &f); err != nil {
				return err
			}
			dir, err := findImages(f.images)
			if err != nil && !onlySourceTrees(f.versions) {
				return err
			}
			specs, err := selectSpecs(dir, f.versions, f.flavour)
			if err != nil {
				return err
			}
			// Plain `lnbench build` builds what `lnbench run` would run.
			if !cmd.Flags().Changed("version") && f.scenario == "" && len(f.nodes) == 0 && !f.prune {
				if _, err := os.Stat(DefaultScenarioFile); err == nil {
					f.scenario = DefaultScenarioFile
				}
			}
			if f.scenario != "" || len(f.nodes) > 0 {
				if specs, err = scenarioBuilds(dir, f); err != nil {
					return err
				}
			}
			if f.prune {
				return pruneBuilds(cmd.Context(), stdout, f, specs)
			}
			if f.dryRun {
				return showKeys(stdout, f.cache, specs)
			}
			for _, s := range specs {
				start := time.Now()
				r, err := buildset.EnsureBuild(cmd.Context(), f.cache, s, stderr)
				if err != nil {
					return err
				}
				state := "cached"
				if r.Built {
					state = "built"
				}
				fmt.Fprintf(stdout, "%s: %s in %.1fs → %s\n", s, state, time.Since(start).Seconds(), r.Dir)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.images, "images", "", "folder of node build modules (default: images/ of the repository)")
	fl.StringVar(&f.cache, "cache", nodebuild.DefaultCacheDir(), "binary cache folder ($LNBENCH_CACHE)")
	fl.StringSliceVar(&f.versions, "version", []string{"lnd@v0.21.0-beta"}, "what to build: IMPL@VERSION (a folder of --images), IMPL@src:PATH (a source tree), or 'all' folders")
	fl.StringVar(&f.flavour.PGO, "pgo", "", "CPU profile for profile-guided optimisation (go build -pgo)")
	fl.StringVar(&f.pgoFrom, "pgo-from", "", "build with a profile merged from an earlier run's artifacts folder (its sampler windows)")
	fl.StringSliceVar(&f.pgoActors, "pgo-actors", nil, "with --pgo-from: merge only these actors' windows, e.g. alice,bob (default: every node of the run)")
	fl.StringVar(&f.flavour.GOAMD64, "goamd64", "", "GOAMD64 level v1..v4 (default v1)")
	fl.StringVar(&f.flavour.GCFlags, "gcflags", "", "extra go build -gcflags (prefix all= to reach LND's packages)")
	fl.StringVar(&f.flavour.LDFlags, "ldflags", "", "extra go build -ldflags")
	fl.StringSliceVar(&f.flavour.Tags, "tags", nil, "extra build tags, added to "+strings.Join(nodebuild.Tags, ","))
	fl.BoolVar(&f.list, "list", false, "list cached builds and exit")
	fl.BoolVar(&f.prune, "prune", false, "remove cached builds not used for --unused-days and superseded source builds, except the --version specs' current builds")
	fl.IntVar(&f.unusedDays, "unused-days", 30, "with --prune: age of last use after which a build is removed (0: all but the kept ones)")
	fl.BoolVar(&f.dryRun, "dry-run", false, "print each build's key and whether it is cached; build nothing")
	fl.StringVar(&f.scenario, "scenario", "", "build every node spec a scenario file needs (its nodes: and topology-pinned specs)")
	fl.StringArrayVar(&f.nodes, "node", nil, "build a node spec as lnbench run --node reads it, e.g. lnd@v0.21.0-beta+pgo=cpu.pgo (repeatable)")
	fl.StringVar(&f.addVersion, "add-version", "", "add a release folder images/lnd/VERSION, e.g. v0.20.1-beta")
	return cmd
}

// resolvePGO turns --pgo-from into the flavour's profile, saying what was merged.
func resolvePGO(stdout io.Writer, f *buildFlags) error {
	switch {
	case f.pgoFrom == "" && len(f.pgoActors) > 0:
		return fmt.Errorf("--pgo-actors chooses windows of --pgo-from: add --pgo-from ARTIFACTS_DIR")
	case f.pgoFrom == "":
		return nil
	case f.flavour.PGO != "":
		return fmt.Errorf("--pgo and --pgo-from both name a profile: keep one")
	}
	path, info, err := pgo.MergeFromRun(f.cache, f.pgoFrom, f.pgoActors)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "pgo: %s → %s\n", info, path)
	f.flavour.PGO = path
	return nil
}

// onlySourceTrees is true when no --version needs the images/ folder.
func onlySourceTrees(versions []string) bool {
	for _, v := range versions {
		if !strings.Contains(v, "@src:") {
			return false
		}
	}
	return true
}

// selectSpecs reads --version values, each with the flavour applied.
func selectSpecs(images string, versions []string, flavour nodebuild.Flavour) ([]nodebuild.Spec, error) {
	if err := flavour.Validate(); err != nil {
		return nil, fmt.Errorf("--%v", err)
	}
	var out []nodebuild.Spec
	if len(versions) == 1 && versions[0] == "all" {
		all, err := nodebuild.Specs(images)
		if err != nil {
			return nil, err
		}
		out = all
	} else {
		for _, v := range versions {
			s, err := nodebuild.Parse(images, v)
			if err != nil {
				return nil, fmt.Errorf("--version: %v", err)
			}
			out = append(out, s)
		}
	}
	for i := range out {
		out[i].Flavour = flavour
	}
	return out, nil
}

func showKeys(stdout io.Writer, cache string, specs []nodebuild.Spec) error {
	for _, s := range specs {
		key, err := nodebuild.KeyOf(s)
		if err != nil {
			return err
		}
		state := "not built"
		if r, err := nodebuild.Peek(cache, s); err == nil {
			state = "cached in " + r.Dir
		}
		fmt.Fprintf(stdout, "%s: key %s, %s\n", s, key, state)
	}
	return nil
}

func listBuilds(ctx context.Context, stdout io.Writer, cache string) error {
	entries, err := nodebuild.List(cache)
	if err != nil {
		return err
	}
	if len(entries) == 0 {
		fmt.Fprintf(stdout, "no builds in %s\n", cache)
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tSIZE\tLAST USED\tBUILT\tTOOLCHAIN\tIMAGES\tSTATE\tFROM")
	var total, staleSize int64
	stale := 0
	for _, e := range entries {
		total += e.Size
		state := "-"
		if e.SupersededBy != "" {
			state = "stale: superseded by " + e.SupersededBy
			stale++
			staleSize += e.Size
		}
		built := "?"
		if !e.Manifest.BuiltAt.IsZero() {
			built = fmt.Sprintf("%s ago in %.0fs", buildset.Age(e.Manifest.BuiltAt), e.Manifest.BuildSeconds)
		}
		images := "-"
		if tags := imagebuild.ImagesOf(ctx, e.Manifest.Key); len(tags) > 0 {
			images = strings.Join(tags, ",")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s ago\t%s\t%s\t%s\t%s\t%s\n", e.Manifest.Key, buildset.Megabytes(e.Size), buildset.Age(e.LastUsed), built, toolchainOf(e.Manifest), images, state, e.Manifest.From())
	}
	tw.Flush()
	fmt.Fprintf(stdout, "%d builds, %s in %s\n", len(entries), buildset.Megabytes(total), cache)
	if stale > 0 {
		fmt.Fprintf(stdout, "%d stale (a newer build of the same source tree and flavour superseded them), %s: `lnbench build --prune` removes them\n", stale, buildset.Megabytes(staleSize))
	}
	return nil
}

func pruneBuilds(ctx context.Context, stdout io.Writer, f buildFlags, keepSpecs []nodebuild.Spec) error {
	if f.unusedDays < 0 {
		return fmt.Errorf("--unused-days %d: use 0 or more", f.unusedDays)
	}
	keep := map[string]bool{}
	for _, s := range keepSpecs {
		key, err := nodebuild.KeyOf(s)
		if err != nil {
			return err
		}
		keep[key] = true
	}
	inUse, kept := buildset.LiveRunUse(runs.Root(), os.Getpid())
	removed, err := nodebuild.Prune(f.cache, nodebuild.PruneRule{
		UnusedFor: time.Duration(f.unusedDays) * 24 * time.Hour, Keep: keep, Now: time.Now(),
		Superseded: true, InUse: inUse})
	var freed int64
	for _, e := range removed {
		freed += e.Size
		why := fmt.Sprintf("last used %s ago", buildset.Age(e.LastUsed))
		if e.SupersededBy != "" {
			why = "superseded by " + e.SupersededBy + ", " + why
		}
		fmt.Fprintf(stdout, "removed %s (%s, %s): %s\n", e.Manifest.Key, buildset.Megabytes(e.Size), why, e.Manifest.From())
		err = errors.Join(err, buildset.RemoveImagesOf(ctx, stdout, e.Manifest.Key))
	}
	for _, k := range *kept {
		fmt.Fprintf(stdout, "kept %s: %s\n", k.Entry.Manifest.Key, k.Why)
	}
	fmt.Fprintf(stdout, "pruned %d builds, freed %s\n", len(removed), buildset.Megabytes(freed))
	return err
}

func addVersion(cmd *cobra.Command, stdout, stderr io.Writer, f buildFlags) error {
	dir, err := findImages(f.images)
	if err != nil {
		return err
	}
	start := time.Now()
	s, err := nodebuild.AddVersion(cmd.Context(), dir, "lnd", f.addVersion, stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "added %s in %.1fs; build it with `lnbench build --version %s`\n", s.ModuleDir, time.Since(start).Seconds(), s.Text())
	return nil
}

// scenarioBuilds are the builds of --scenario's node specs, or of --node.
func scenarioBuilds(images string, f buildFlags) ([]nodebuild.Spec, error) {
	s := scenario.Default()
	if f.scenario != "" {
		var err error
		if s, err = scenario.Load(f.scenario); err != nil {
			return nil, err
		}
	}
	s, err := applyNodeFlags(s, runFlags{nodes: f.nodes})
	if err != nil {
		return nil, err
	}
	specs, err := s.AllSpecs()
	if err != nil {
		return nil, err
	}
	var out []nodebuild.Spec
	for _, sp := range specs {
		b, err := buildset.BuildSpec(images, f.cache, sp)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// toolchainOf is the Go version of a Go build, the compiler of a C one.
func toolchainOf(m nodebuild.Manifest) string {
	if m.GoVersion != "" {
		return m.GoVersion
	}
	return m.Compiler
}
