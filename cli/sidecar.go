package cli

import (
	"debug/elf"
	"fmt"
	"os"
	"time"

	"github.com/lnbench/lnbench/scenario"
)

// staticSelf returns this executable's path if it is statically linked, so
// it can run inside the containers (the sampler sidecar, sample-loop.sh).
func staticSelf() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	f, err := elf.Open(exe)
	if err != nil {
		return "", fmt.Errorf("%s is not an ELF binary: %v", exe, err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return "", fmt.Errorf("%s is dynamically linked; build it with CGO_ENABLED=0 (./run.sh does) so it runs in the containers", exe)
		}
	}
	return exe, nil
}

// samplerArgs renders the scenario's sampling settings as sidecar flags.
func samplerArgs(sm scenario.Sampling, origin time.Time) []string {
	args := []string{"--mode", sm.Mode, "--every", sm.Every, "--window", sm.Window, "--slice", sm.Slice,
		"--origin", origin.UTC().Format(time.RFC3339Nano)}
	if sm.Stagger {
		args = append(args, "--stagger")
	}
	return args
}
