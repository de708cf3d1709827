package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Counts are test results; a package that failed with no failing test
// (a build error, a panic in TestMain) counts as one failed test, so the
// closing line never reads "0 failed" for a red run.
type Counts struct {
	Passed, Failed, Skipped int
	// FailedNames are "package TestName" of this run's failures.
	FailedNames []string `json:"-"`
}

// Ran is every test that started: passed, failed or skipped.
func (c Counts) Ran() int { return c.Passed + c.Failed + c.Skipped }

// Line is the closing line.
func (c Counts) Line() string {
	return fmt.Sprintf("%d passed, %d failed, %d skipped", c.Passed, c.Failed, c.Skipped)
}

// Add is the sum of the counts (without names).
func (c Counts) Add(o Counts) Counts {
	return Counts{Passed: c.Passed + o.Passed, Failed: c.Failed + o.Failed, Skipped: c.Skipped + o.Skipped}
}

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action     string
	Package    string
	Test       string
	Elapsed    float64
	Output     string
	ImportPath string // build-output, build-fail
}

// slow is how long a passing top-level test takes before its line is shown.
const slow = 10.0

// Summarize reads go test -json from r and writes the readable log to w.
func Summarize(r io.Reader, w io.Writer) (Counts, error) {
	var c Counts
	type key struct{ pkg, test string }
	output := map[key][]string{}
	running := map[key]bool{}
	pkgFailedTests := map[string]int{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	fail := func(k key) {
		c.Failed++
		pkgFailedTests[k.pkg]++
		c.FailedNames = append(c.FailedNames, k.pkg+" "+k.test)
		io.WriteString(w, strings.Join(output[k], ""))
	}
	for sc.Scan() {
		line := sc.Text()
		var e event
		if !strings.HasPrefix(line, "{") || json.Unmarshal([]byte(line), &e) != nil {
			fmt.Fprintln(w, line) // not an event: go's own message, keep it
			continue
		}
		k := key{e.Package, e.Test}
		switch {
		case e.Action == "build-output":
			io.WriteString(w, e.Output)
		case e.Action == "build-fail":
			// The package's own fail event follows and counts it.
		case e.Test == "" && e.Action == "output":
			if s := strings.TrimSpace(e.Output); s != "PASS" && s != "FAIL" {
				io.WriteString(w, e.Output)
			}
		case e.Test == "" && e.Action == "fail":
			// Tests still running died with the package (timeout, panic).
			var dead []key
			for rk := range running {
				if rk.pkg == e.Package {
					dead = append(dead, rk)
				}
			}
			sort.Slice(dead, func(i, j int) bool { return dead[i].test < dead[j].test })
			for _, rk := range dead {
				fmt.Fprintf(w, "--- %s did not finish: %s\n", rk.test, e.Package)
				fail(rk)
				delete(running, rk)
			}
			if pkgFailedTests[e.Package] == 0 {
				c.Failed++
				c.FailedNames = append(c.FailedNames, e.Package+" (package: build or setup failed)")
			}
		case e.Test == "":
		case e.Action == "run":
			running[k] = true
		case e.Action == "output":
			output[k] = append(output[k], e.Output)
		case e.Action == "pass":
			c.Passed++
			if !strings.Contains(e.Test, "/") && e.Elapsed >= slow {
				fmt.Fprintf(w, "--- PASS: %s (%.1fs) %s\n", e.Test, e.Elapsed, e.Package)
			}
		case e.Action == "skip":
			c.Skipped++
			fmt.Fprintf(w, "--- SKIP: %s %s\n", e.Test, e.Package)
			for _, l := range output[k] {
				if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "=== ") && !strings.HasPrefix(t, "--- SKIP") {
					io.WriteString(w, l)
				}
			}
		case e.Action == "fail":
			fail(k)
		}
		if e.Test != "" && (e.Action == "pass" || e.Action == "fail" || e.Action == "skip") {
			delete(running, k)
			delete(output, k)
		}
	}
	return c, sc.Err()
}
