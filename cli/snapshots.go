package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/lnbench/lnbench/backend/driver"
	"github.com/lnbench/lnbench/internal/lines"
	"github.com/lnbench/lnbench/nodebuild"
	"github.com/lnbench/lnbench/scenario"
	"github.com/lnbench/lnbench/snapshot"
)

// snapshotCache is the folder of snapshots: dir, else snapshots/ in the
// build cache.
func snapshotCache(cache, dir string) snapshot.Cache {
	if dir == "" {
		dir = filepath.Join(cache, "snapshots")
	}
	return snapshot.Cache{Dir: dir}
}

func snapshotsCmd(stdout, stderr io.Writer) *cobra.Command {
	var cache, dir string
	var olderThan time.Duration
	var all bool
	cmd := &cobra.Command{
		Use:   "snapshots [list | rm KEY… | prune | export KEY FILE | import FILE]",
		Short: "List, remove, prune, export and import snapshots of ready networks (lnbench run restores from them by default)",
		Long: "A snapshot is a network ready to measure (chain mined, wallets funded, channels open, every\n" +
			"route known) saved by `lnbench run` (on local and compose, unless --fresh-network), keyed by what determines it (topology, each\n" +
			"node's build and settings, the chain). list shows each with its size; prune removes those set\n" +
			"aside (they did not restore), and with --older-than D or --all the usable ones too; export\n" +
			"writes one to a file another machine imports.",
		Args: cobra.MaximumNArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			c := snapshotCache(cache, dir)
			verb := "list"
			if len(args) > 0 {
				verb, args = args[0], args[1:]
			}
			switch verb {
			case "list":
				return listSnapshots(stdout, c)
			case "rm":
				if len(args) == 0 {
					return fmt.Errorf("snapshots rm: name the snapshot keys to remove (lnbench snapshots list shows them)")
				}
				for _, key := range args {
					if _, err := c.Find(key); err != nil {
						return fmt.Errorf("snapshots rm %s: %v", key, err)
					}
					if err := os.RemoveAll(filepath.Join(c.Dir, key)); err != nil {
						return err
					}
					fmt.Fprintf(stdout, "removed %s\n", key)
				}
				return nil
			case "prune":
				gone, err := c.Prune(func(e snapshot.Entry) bool {
					return all || e.Aside != "" || e.Err != nil || (olderThan > 0 && time.Since(e.Manifest.Made) > olderThan)
				})
				for _, e := range gone {
					fmt.Fprintf(stdout, "removed %s (%s)\n", filepath.Base(e.Path), snapshot.Size(e.Manifest.Bytes()))
				}
				return err
			case "export":
				if len(args) != 2 {
					return fmt.Errorf("snapshots export: give the key and the file to write, e.g. lnbench snapshots export net-0123abcd net.tar.gz")
				}
				return exportSnapshot(c, args[0], args[1], stdout)
			case "import":
				if len(args) != 1 {
					return fmt.Errorf("snapshots import: give the file to read, e.g. lnbench snapshots import net.tar.gz")
				}
				f, err := os.Open(args[0])
				if err != nil {
					return fmt.Errorf("snapshots import: %v", err)
				}
				defer f.Close()
				m, err := c.Import(f)
				if err != nil {
					return fmt.Errorf("snapshots import %s: %v", args[0], err)
				}
				fmt.Fprintf(stdout, "imported %s (%s, made %s by %s)\n", m.Key, snapshot.Size(m.Bytes()), m.Made.Format(time.RFC3339), m.By)
				return nil
			}
			return fmt.Errorf("snapshots %s: use list, rm, prune, export or import", verb)
		},
	}
	cmd.Flags().StringVar(&cache, "cache", nodebuild.DefaultCacheDir(), "build cache folder holding snapshots/ ($LNBENCH_CACHE)")
	cmd.Flags().StringVar(&dir, "snapshot-dir", "", "the folder of snapshots (default CACHE/snapshots)")
	cmd.Flags().DurationVar(&olderThan, "older-than", 0, "prune: also remove snapshots made longer ago than this (e.g. 168h)")
	cmd.Flags().BoolVar(&all, "all", false, "prune: remove every snapshot")
	return cmd
}

func listSnapshots(w io.Writer, c snapshot.Cache) error {
	entries, err := c.List()
	if err != nil {
		return err
	}
	if len(entries) == 0 {
		fmt.Fprintf(w, "no snapshots in %s (lnbench run --snapshots makes them)\n", c.Dir)
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tSIZE\tMADE\tBY\tNODES\tSTATE")
	var total int64
	for _, e := range entries {
		state := "usable"
		switch {
		case e.Err != nil:
			state = "unreadable: " + e.Err.Error()
		case e.Aside != "":
			state = "set aside: " + lines.First(e.Aside)
		}
		m := e.Manifest
		total += m.Bytes()
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", filepath.Base(e.Path), snapshot.Size(m.Bytes()), m.Made.Local().Format("2006-01-02 15:04"), m.By, strings.Join(m.Actors(), " "), state)
	}
	tw.Flush()
	fmt.Fprintf(w, "%d snapshot(s), %s in %s\n", len(entries), snapshot.Size(total), c.Dir)
	return nil
}

func exportSnapshot(c snapshot.Cache, key, path string, stdout io.Writer) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("snapshots export: %v", err)
	}
	err = c.Export(f, key)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("snapshots export %s: %v", key, err)
	}
	fmt.Fprintf(stdout, "wrote %s to %s\n", key, path)
	return nil
}

// FreshNetworkEnv, set to true, builds every network by default, as
// --fresh-network does (a flag or --snapshots given overrides it): for a
// machine or a test suite that must not restore from, or fill, the cache.
const FreshNetworkEnv = "LNBENCH_FRESH_NETWORK"

// restoresNetworks says whether the run restores its networks from
// snapshots. Restoring is the default wherever the backend keeps its
// actors' data on this host: restored networks measure as built ones do
// (docs/measured.md, Snapshots). The scenario's fresh_network, or
// --fresh-network, builds every network; --snapshots (or --snapshots-for)
// asks for restores, over the scenario's key as flags override a file
// (loadScenario clears it), and is refused where the backend cannot. note, when
// not "", says why a default restore does not happen.
func restoresNetworks(s scenario.Scenario, f runFlags, be driver.Driver) (restore bool, note string, err error) {
	if err := f.snapshotFlagsConflict(); err != nil {
		return false, "", err
	}
	asked := f.wantsSnapshots()
	switch {
	case asked:
		if !be.Caps().Snapshots {
			return false, "", fmt.Errorf("--snapshots: the %s backend keeps its actors' data on its engines' hosts, where lnbench cannot save it; %s, or run without --snapshots",
				be.Name(), driver.UseOneOf(func(c driver.Caps) bool { return c.Snapshots }))
		}
		return true, "", nil
	case f.freshSet && f.fresh, !f.freshSet && (s.FreshNetwork || envFresh()):
		return false, "", nil
	case !be.Caps().Snapshots:
		return false, fmt.Sprintf("snapshots: every network is built (the %s backend keeps its actors' data on its engines' hosts)", be.Name()), nil
	}
	return true, "", nil
}

// snapshotFlagsConflict refuses --fresh-network with --snapshots.
func (f runFlags) snapshotFlagsConflict() error {
	if f.wantsSnapshots() && f.freshSet && f.fresh {
		return fmt.Errorf("--fresh-network and --snapshots: keep one (--fresh-network builds every network, --snapshots restores them)")
	}
	return nil
}

// envFresh reads FreshNetworkEnv (any value strconv.ParseBool takes as true).
func envFresh() bool {
	v, ok := envBool(FreshNetworkEnv)
	return ok && v
}

// envBool reads a boolean variable; ok is false when it is unset or not
// a value strconv.ParseBool takes.
func envBool(name string) (v, ok bool) {
	v, err := strconv.ParseBool(os.Getenv(name))
	return v, err == nil
}

// checkSnapshotsFor refuses a --snapshots-for label that names no node spec.
func checkSnapshotsFor(s scenario.Scenario, labels []string) error {
	if len(labels) == 0 {
		return nil
	}
	specs, err := s.AllSpecs()
	if err != nil {
		return err
	}
	var known []string
	for _, sp := range specs {
		known = append(known, sp.Label)
	}
	for _, l := range labels {
		if !slices.Contains(known, l) {
			return fmt.Errorf("--snapshots-for %q: name one of the node specs' labels (%s)", l, strings.Join(known, ", "))
		}
	}
	return nil
}
