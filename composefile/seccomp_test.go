package composefile

import (
	"encoding/json"
	"slices"
	"testing"
)

// The profile is Docker's default (its default action refuses) with one
// more rule: perf_event_open allowed without any capability condition.
func TestPerfSeccompAllowsPerfOnly(t *testing.T) {
	data, err := PerfSeccomp()
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		DefaultAction string `json:"defaultAction"`
		Syscalls      []struct {
			Names    []string        `json:"names"`
			Action   string          `json:"action"`
			Includes json.RawMessage `json:"includes"`
		} `json:"syscalls"`
	}
	if err := json.Unmarshal(data, &p); err != nil {
		t.Fatal(err)
	}
	if p.DefaultAction != "SCMP_ACT_ERRNO" || len(p.Syscalls) < 10 {
		t.Fatalf("not Docker's default profile: default %q, %d rules", p.DefaultAction, len(p.Syscalls))
	}
	last := p.Syscalls[len(p.Syscalls)-1]
	if !slices.Equal(last.Names, []string{"perf_event_open"}) || last.Action != "SCMP_ACT_ALLOW" || (len(last.Includes) > 0 && string(last.Includes) != "{}") {
		t.Errorf("last rule %+v; want perf_event_open allowed unconditionally", last)
	}
}
