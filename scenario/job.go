package scenario

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// JobSettings name the job's settings as a scenario file's job: block and
// --job write them (BenchmarkDotNet's job characteristics).
var JobSettings = []string{"LaunchCount", "WarmupCount", "IterationCount", "InvocationCount", "Duration"}

// IsJobSetting tells whether name is a job setting rather than a param.
func IsJobSetting(name string) bool { return slices.Contains(JobSettings, name) }

// Override sets one job setting from "Name=value" (--job IterationCount=5).
// Ranges are checked with the rest of the scenario (Validate).
func (j Job) Override(text string) (Job, error) {
	name, value, ok := strings.Cut(text, "=")
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	if !ok || name == "" || value == "" {
		return j, fmt.Errorf("--job %q: use Name=value, e.g. --job IterationCount=5 (settings: %s)", text, strings.Join(JobSettings, ", "))
	}
	if !IsJobSetting(name) {
		if _, isParam := spec(name); isParam {
			return j, fmt.Errorf("--job %s: %s is a param, not a job setting; use --param %s", text, name, text)
		}
		return j, fmt.Errorf("--job %s: %q is not a job setting; use one of %s", text, name, strings.Join(JobSettings, ", "))
	}
	if name == "Duration" {
		d, err := time.ParseDuration(value)
		if err != nil {
			return j, fmt.Errorf("--job %s: use a duration such as 10m (0 = IterationCount decides)", text)
		}
		j.Duration = d
		return j, nil
	}
	n, err := strconv.Atoi(value)
	if err != nil {
		return j, fmt.Errorf("--job %s: use a whole number", text)
	}
	switch name {
	case "LaunchCount":
		j.LaunchCount = n
	case "WarmupCount":
		j.WarmupCount = n
	case "IterationCount":
		j.IterationCount = n
	case "InvocationCount":
		j.InvocationCount = n
	}
	return j, nil
}
