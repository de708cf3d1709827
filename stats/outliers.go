package stats

// Outliers holds the values beyond Tukey's fences, in ascending order.
// Mild: more than 1.5·IQR beyond Q1/Q3 but not more than 3·IQR.
// Severe: more than 3·IQR beyond Q1/Q3.
type Outliers struct {
	LowSevere, LowMild, HighMild, HighSevere []float64
}

// Count returns the total number of outliers.
func (o Outliers) Count() int {
	return len(o.LowSevere) + len(o.LowMild) + len(o.HighMild) + len(o.HighSevere)
}

// TukeyOutliers classifies the values of an ascending sample against
// Tukey's fences built from q1 and q3 (Tukey, Exploratory Data Analysis,
// 1977; the same scheme criterion.rs reports). Values exactly on a fence
// are not outliers ("beyond" is strict). Outliers are reported, never
// removed: for latencies the tail is often the interesting part.
func TukeyOutliers(sorted []float64, q1, q3 float64) Outliers {
	iqr := q3 - q1
	lowSevere, lowMild := q1-3*iqr, q1-1.5*iqr
	highMild, highSevere := q3+1.5*iqr, q3+3*iqr
	var o Outliers
	for _, x := range sorted {
		switch {
		case x < lowSevere:
			o.LowSevere = append(o.LowSevere, x)
		case x < lowMild:
			o.LowMild = append(o.LowMild, x)
		case x > highSevere:
			o.HighSevere = append(o.HighSevere, x)
		case x > highMild:
			o.HighMild = append(o.HighMild, x)
		}
	}
	return o
}
