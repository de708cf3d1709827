package compose

import (
	"context"
	"strings"

	"github.com/lnbench/lnbench/backend"
)

// RunObjects counts the containers, networks and volumes of each run id
// found on the engine (any lnbench.run label value).
func RunObjects(ctx context.Context) (map[string]int, error) {
	out := map[string]int{}
	format := `{{.Label "` + backend.Label + `"}}`
	for _, kind := range [][]string{{"ps", "-a"}, {"network", "ls"}, {"volume", "ls"}} {
		s, err := docker(ctx, append(kind, "--filter", "label="+backend.Label, "--format", format)...)
		if err != nil {
			return out, err
		}
		for _, id := range strings.Fields(s) {
			out[id]++
		}
	}
	return out, nil
}
