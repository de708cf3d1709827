package compose

import (
	"strings"
	"testing"
)

func TestToolCandidates(t *testing.T) {
	for choice, want := range map[string]string{
		"":   "docker compose|docker-compose",
		"v2": "docker compose",
		"v1": "docker-compose",
	} {
		got, err := toolCandidates(choice)
		if err != nil {
			t.Fatalf("%q: %v", choice, err)
		}
		var names []string
		for _, argv := range got {
			names = append(names, strings.Join(argv, " "))
		}
		if strings.Join(names, "|") != want {
			t.Errorf("%s=%q tries %q, want %q", ToolEnv, choice, names, want)
		}
	}
	for _, bad := range []string{"V2", "2", "compose", "docker-compose"} {
		_, err := toolCandidates(bad)
		if err == nil || !strings.Contains(err.Error(), ToolEnv) || !strings.Contains(err.Error(), "v1") || !strings.Contains(err.Error(), "v2") {
			t.Errorf("%q: want an error naming %s and its values, got %v", bad, ToolEnv, err)
		}
	}
}
