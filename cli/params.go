package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/lnbench/lnbench/scenario"
)

func paramsCmd(stdout io.Writer) *cobra.Command {
	var markdown bool
	cmd := &cobra.Command{
		Use:   "params",
		Short: "List the params a scenario or --param may set: default, valid values, meaning",
		Long: "List every known param (scenario.Known): its default, its valid values and what it does.\n" +
			"--markdown prints the table docs/scenarios.md holds (a test keeps the two equal).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if markdown {
				_, err := io.WriteString(stdout, scenario.ParamsMarkdown())
				return err
			}
			plain := strings.NewReplacer("`", "")
			tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "PARAM\tDEFAULT\tVALUES\tWHAT IT DOES")
			for _, r := range scenario.ParamRows() {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Name, plain.Replace(r.Default), plain.Replace(r.Values), plain.Replace(r.Doc))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&markdown, "markdown", false, "print the markdown table of docs/scenarios.md")
	return cmd
}
