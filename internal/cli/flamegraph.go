package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/lnbench/lnbench/flamegraph"
)

func flamegraphCmd(stdout, stderr io.Writer) *cobra.Command {
	var out string
	var diff bool
	var top int
	var opts flamegraph.Options
	cmd := &cobra.Command{
		Use:   "flamegraph {IN | --diff BEFORE AFTER} -o OUT.svg",
		Short: "Render a pprof profile or folded stacks as an SVG flame graph, or two as a differential one",
		Long: `Render a flame graph from a pprof profile (as net/http/pprof serves it) or
folded stacks ("frame;frame;... count" lines), telling them apart by content.

With --diff, render AFTER's flame graph coloured by the change since BEFORE:
red where a frame's share of the samples grew, blue where it shrank.`,
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
				f, err := flamegraph.ReadFile(a)
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
