package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// testdata/mixed.jsonl is `go test -json ./...` of a small module: a
// passing, a skipped and a failing test, subtests (one fails), two
// parallel tests (one fails) and a package that does not build.
func TestSummarizeShowsFailuresAndSkipsAndCounts(t *testing.T) {
	f, err := os.Open("testdata/mixed.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out bytes.Buffer
	c, err := Summarize(f, &out)
	if err != nil {
		t.Fatal(err)
	}
	// Failed: TestFail, TestSub/bad, TestSub, TestParallelB, the broken package.
	if got := c.Line(); got != "3 passed, 5 failed, 1 skipped" {
		t.Errorf("counts %q", got)
	}
	log := out.String()
	for _, want := range []string{
		"undefined: undefined",        // the build error
		"printed by the failing test", // a failing test's stdout
		"a_test.go:7: boom",           // its t.Error
		"a_test.go:10: sub boom",      // a failing subtest
		"a_test.go:13: B fails",       // a failing parallel test
		"--- SKIP: TestSkip tsdemo",   // a skip, with
		"a_test.go:6: needs a thing",  // its reason
		"FAIL\ttsdemo/broken [build failed]",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	for _, unwanted := range []string{"quiet", "A out", "--- PASS: TestPass"} {
		if strings.Contains(log, unwanted) {
			t.Errorf("log shows a passing test's output %q:\n%s", unwanted, log)
		}
	}
}

func TestTotalsEndWithTheCountsLine(t *testing.T) {
	var out bytes.Buffer
	run := Counts{Passed: 2, Skipped: 1}
	writeTotals(&out, run, Counts{Passed: 5, Failed: 0, Skipped: 1}, true)
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	if got := lines[len(lines)-1]; got != "5 passed, 0 failed, 1 skipped" {
		t.Errorf("last line %q in:\n%s", got, out.String())
	}
}

func TestATestThatNeverEndsFailsWithItsPackage(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"run","Package":"p","Test":"TestHang"}`,
		`{"Action":"output","Package":"p","Test":"TestHang","Output":"=== RUN   TestHang\n"}`,
		`{"Action":"output","Package":"p","Output":"panic: test timed out after 1s\n"}`,
		`{"Action":"fail","Package":"p","Elapsed":1}`,
	}, "\n")
	var out bytes.Buffer
	c, err := Summarize(strings.NewReader(in), &out)
	if err != nil {
		t.Fatal(err)
	}
	if c.Failed != 1 || len(c.FailedNames) != 1 || c.FailedNames[0] != "p TestHang" {
		t.Errorf("counts %+v", c)
	}
	if !strings.Contains(out.String(), "panic: test timed out") || !strings.Contains(out.String(), "TestHang did not finish") {
		t.Errorf("log:\n%s", out.String())
	}
}
