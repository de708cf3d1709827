// Command testsum reads `go test -json` on stdin and writes a readable log:
// package lines, every failing test's full output, one line per skipped
// test with its reason, tests slower than 10 s; then the counts, the last
// line being "N passed, N failed, N skipped". It exits 1 when anything
// failed (a test, a build, a package) or no test ran.
//
// With -counts FILE the counts of earlier runs in FILE are added and FILE
// is rewritten, so a script that runs go test twice ends with the total.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
)

func main() {
	countsFile := flag.String("counts", "", "add the counts in this file (if any) and write the total back")
	flag.Parse()
	var prior Counts
	if *countsFile != "" {
		data, err := os.ReadFile(*countsFile)
		if err == nil && len(bytes.TrimSpace(data)) > 0 { // test.sh's mktemp makes it empty
			err = json.Unmarshal(data, &prior)
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(os.Stderr, "testsum: -counts %s: %v\n", *countsFile, err)
			os.Exit(2)
		}
	}
	c, err := Summarize(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintf(os.Stderr, "testsum: reading go test -json: %v\n", err)
		os.Exit(2)
	}
	total := prior.Add(c)
	if *countsFile != "" {
		data, _ := json.Marshal(total)
		if err := os.WriteFile(*countsFile, data, 0o644); err != nil {
			fmt.Fprintf(os.Stderr, "testsum: %v\n", err)
			os.Exit(2)
		}
	}
	writeTotals(os.Stdout, c, total, prior.Ran() > 0)
	if c.Failed > 0 || c.Passed+c.Failed+c.Skipped == 0 {
		os.Exit(1)
	}
}

// writeTotals ends the log; earlier says total adds runs before this one.
func writeTotals(w io.Writer, run, total Counts, earlier bool) {
	if len(run.FailedNames) > 0 {
		fmt.Fprintln(w, "failed:")
		for _, n := range run.FailedNames {
			fmt.Fprintln(w, "  "+n)
		}
	}
	if run.Passed+run.Failed+run.Skipped == 0 {
		fmt.Fprintln(w, "no test ran")
	}
	if earlier {
		fmt.Fprintf(w, "this go test: %s\n", run.Line())
		fmt.Fprintf(w, "ran %d tests in all (a test run twice counts twice)\n", total.Ran())
	} else {
		fmt.Fprintf(w, "ran %d tests\n", total.Ran())
	}
	fmt.Fprintln(w, total.Line())
}
