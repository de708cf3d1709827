package cli

import (
	"github.com/spf13/pflag"

	"github.com/lnbench/lnbench/report"
)

// PlotsEnv, set to false, makes --plots=false the default of `run` and
// `report` (a flag given overrides it): for a test suite or a loop of
// runs that reads the numbers, not the pictures.
const PlotsEnv = "LNBENCH_PLOTS"

// plotsFlag is --plots: whether a render runs R over plots.R.
type plotsFlag struct {
	on, set bool
}

func addPlotsFlag(fl *pflag.FlagSet, p *plotsFlag) {
	fl.BoolVar(&p.on, "plots", true, "draw the PNG plots with R after the reports (plots.R is written either way; `Rscript plots.R DIR` draws them later; $"+PlotsEnv+"=0 makes false the default)")
}

// options reads the flag, else PlotsEnv (envBool).
func (p plotsFlag) options() report.RenderOptions {
	on := p.on
	if v, ok := envBool(PlotsEnv); ok && !p.set {
		on = v
	}
	return report.RenderOptions{SkipPlots: !on}
}
