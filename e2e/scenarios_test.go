//go:build e2e

package e2e

import (
	"path/filepath"
	"testing"

	"github.com/lnbench/lnbench/scenario"
)

// The seed's three scenarios load with their published defaults.
func TestSeedScenarioFiles(t *testing.T) {
	t.Parallel() // reads files only
	root := repoRoot(t)
	tests := []struct {
		file  string
		cases int
	}{
		{"bench/scenario.yml", 4},
		{"bench/scenarios/RunAlicePaysBob.yml", 4},
		{"bench/scenarios/RunAlicePaysBobViaCarol.yml", 4},
		{"bench/scenarios/RunAlicesPayBob.yml", 4},
		{"bench/scenarios/scale.yml", 4}, // NodeCount 10, 25, 50, 100
	}
	for _, tt := range tests {
		s, err := scenario.Load(filepath.Join(root, tt.file))
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Cases()) != tt.cases {
			t.Errorf("%s: %d cases", tt.file, len(s.Cases()))
		}
	}
}
