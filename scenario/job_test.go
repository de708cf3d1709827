package scenario

import (
	"strings"
	"testing"
	"time"
)

func TestJobOverride(t *testing.T) {
	j := DefaultJob
	for _, text := range []string{"LaunchCount=2", "WarmupCount=0", " IterationCount = 5 ", "InvocationCount=3", "Duration=15m"} {
		var err error
		if j, err = j.Override(text); err != nil {
			t.Fatalf("%q: %v", text, err)
		}
	}
	if want := (Job{LaunchCount: 2, WarmupCount: 0, IterationCount: 5, InvocationCount: 3, Duration: 15 * time.Minute}); j != want {
		t.Errorf("job %+v, want %+v", j, want)
	}
	for text, want := range map[string]string{
		"IterationCount":    `use Name=value`,
		"=5":                `use Name=value`,
		"Iterations=5":      `"Iterations" is not a job setting; use one of LaunchCount`,
		"Concurrency=5":     "Concurrency is a param, not a job setting; use --param Concurrency=5",
		"IterationCount=5x": "use a whole number",
		"Duration=5":        "use a duration such as 10m",
	} {
		if _, err := DefaultJob.Override(text); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err %v, want %q", text, err, want)
		}
	}
}

// A job setting given as a param says where job settings live.
func TestJobSettingAsParamNamesJob(t *testing.T) {
	_, err := ParseOverride("IterationCount=5")
	if err == nil || err.Error() != `param "IterationCount" is a job setting, not a param: use --job IterationCount=5 on the command line, or job: {IterationCount: 5} in the scenario file` {
		t.Errorf("err %v", err)
	}
	if _, err := Parse([]byte("topology: AlicePaysBob\nparams: {WarmupCount: [0]}\n")); err == nil || !strings.Contains(err.Error(), "job: {WarmupCount: 0}") {
		t.Errorf("in a file: err %v", err)
	}
	if _, err := ParseOverride("Speed=5"); err == nil || !strings.Contains(err.Error(), "(job settings such as IterationCount: --job)") {
		t.Errorf("unknown: err %v", err)
	}
}
