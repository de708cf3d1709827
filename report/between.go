package report

// Metrics RatioBetween compares.
const (
	MetricTime = "time" // mean iteration time (closed loop: the inverse of payments/s)
	MetricP50  = "p50"  // median payment latency (the open loop's primary)
)

// RatioBetween is the ratio of spec subject against spec against in the
// case whose params but Node are caseKey (the ids' "Concurrency=20/…";
// "" when the run has one case per spec), tested exactly as a verdict
// against the baseline is: launches as the unit, paired by round. It lets
// a caller compare two specs of a run neither of which is the baseline.
func RatioBetween(r Report, subject, against, caseKey string) (Ratio, bool) {
	return MetricRatioBetween(r, MetricTime, subject, against, caseKey)
}

// MetricRatioBetween is RatioBetween of a metric: MetricTime tests mean
// iteration times as every verdict does; MetricP50 tests each launch's
// median latency the same way (launches as the unit, paired by round).
func MetricRatioBetween(r Report, metric, subject, against, caseKey string) (Ratio, bool) {
	var c, b *Row
	for i := range r.Cases {
		row := &r.Cases[i]
		if withoutNode(row.Params) != caseKey {
			continue
		}
		switch row.Node {
		case subject:
			c = row
		case against:
			b = row
		}
	}
	if c == nil || b == nil {
		return Ratio{}, false
	}
	return metricRatioOf(*c, *b, metric, r.verdictConfig()), true
}

// CaseKey is a case's identity across specs: its params but Node.
func CaseKey(c Row) string { return withoutNode(c.Params) }
