package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// StudentTQuantile returns the p-quantile of Student's t distribution with
// df degrees of freedom (R: qt(p, df)). It returns NaN instead of
// panicking (as gonum does) when p is outside [0, 1] or df is not positive.
func StudentTQuantile(p float64, df float64) float64 {
	if math.IsNaN(p) || p < 0 || p > 1 || math.IsNaN(df) || df <= 0 {
		return math.NaN()
	}
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(p)
}
