package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lnbench/lnbench/flamegraph"
	"github.com/lnbench/lnbench/record/traces"
)

func flamegraphCmd(stdout, stderr io.Writer) *cobra.Command {
	var out string
	var diff bool
	var top int
	var opts flamegraph.Options
	var actor string
	cmd := &cobra.Command{
		Use:   "flamegraph {IN | --diff BEFORE AFTER} -o OUT.svg",
		Short: "Render a pprof profile or folded stacks as an SVG flame graph, or two as a differential one",
		Long: `Render a flame graph from a pprof profile (as net/http/pprof serves it) or
folded stacks ("frame;frame;... count" lines), telling them apart by content.

With --diff, render AFTER's flame graph coloured by the change since BEFORE:
red where a frame's share of the samples grew, blue where it shrank.

An input may also be a run's artifacts folder: its profiling windows (of
--actor, or of every actor) are merged, so two runs, e.g. two LND versions,
can be compared with --diff RUN_A RUN_B --actor alice.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if diff && len(args) != 2 {
				return errors.New("--diff takes two profiles: BEFORE AFTER")
			}
			if !diff && len(args) != 1 {
				return errors.New("want one profile (or --diff BEFORE AFTER)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			profiles := make([]flamegraph.Folded, len(args))
			for i, a := range args {
				f, err := readProfileOrRun(a, actor)
				if err != nil {
					return err
				}
				profiles[i] = f
			}
			var buf bytes.Buffer
			var err error
			if diff {
				err = flamegraph.RenderDiff(&buf, flamegraph.Diff(profiles[0], profiles[1]), opts)
			} else {
				err = flamegraph.Render(&buf, profiles[0], opts)
			}
			if err != nil {
				return err
			}
			if out == "-" {
				_, err = stdout.Write(buf.Bytes())
			} else {
				err = os.WriteFile(out, buf.Bytes(), 0o644)
			}
			if err != nil {
				return err
			}
			if top > 0 {
				tw := stdout
				if out == "-" {
					tw = stderr
				}
				f := profiles[len(profiles)-1]
				printTop(tw, "self", flamegraph.TopSelf(f, top))
				printTop(tw, "inclusive", flamegraph.TopInclusive(f, top))
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "SVG file to write ('-' for standard output)")
	_ = cmd.MarkFlagRequired("output")
	cmd.Flags().StringVar(&actor, "actor", "", "with an artifacts folder as input: merge only this actor's windows")
	cmd.Flags().BoolVar(&diff, "diff", false, "differential flame graph of two profiles, BEFORE AFTER")
	cmd.Flags().StringVar(&opts.Title, "title", "", "title (default \"Flame Graph\" or \"Differential Flame Graph\")")
	cmd.Flags().StringVar(&opts.Subtitle, "subtitle", "", "second line under the title")
	cmd.Flags().IntVar(&opts.Width, "width", 1200, "image width in pixels")
	cmd.Flags().Float64Var(&opts.MinWidthPx, "minwidth", 0.1, "omit frames narrower than this many pixels")
	cmd.Flags().IntVar(&top, "top", 0, "also print the N hottest functions by self and inclusive samples (of AFTER with --diff; to stderr with -o -)")
	return cmd
}

func printTop(w io.Writer, kind string, rows []flamegraph.FrameShare) {
	fmt.Fprintf(w, "top %s:\n", kind)
	for _, r := range rows {
		fmt.Fprintf(w, "%7.2f%% %10d  %s\n", r.Percent, r.Samples, r.Name)
	}
}

// readProfileOrRun reads a profile file, or merges the windows a run's
// artifacts folder recorded (traces.jsonl), optionally of one actor.
func readProfileOrRun(path, actor string) (flamegraph.Folded, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return flamegraph.ReadFile(path)
	}
	ws, err := traces.ReadIndex(path)
	if err != nil {
		return nil, fmt.Errorf("%s: no profiling windows (traces.jsonl): %v", path, err)
	}
	var all flamegraph.Folded
	for _, w := range ws {
		if actor != "" && w.Actor != actor {
			continue
		}
		f, err := flamegraph.ReadFile(filepath.Join(path, w.Folded))
		if err != nil {
			return nil, err
		}
		all = append(all, f...)
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("%s: no windows for actor %q; actors: %s", path, actor, strings.Join(traces.Actors(ws), ", "))
	}
	return all.Merge(), nil
}
