package report

import (
	"io"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// goos and goarch label the .bench file. The Report does not record them,
// so they are the report writer's (the same machine unless `lnbench
// report` runs elsewhere); tests pin them.
var goos, goarch = runtime.GOOS, runtime.GOARCH

// Units of the .bench file. One result line is one measured iteration,
// with N = the payments of the iteration, so by Go's convention
// (values are per op) sec/op is the iteration's wall time divided by its
// payments: iteration time = sec/op × payments, and benchstat's sec/op
// change is exactly the change of the iteration time.
const (
	unitSecPerOp   = "sec/op"
	unitPaymentsPS = "payments/s"
	unitP50        = "p50-latency-ms"
	unitP99        = "p99-latency-ms"
)

// Bench writes the measured iterations in the Go benchmark format that
// benchstat reads unchanged: `benchstat old.bench new.bench`.
func Bench(w io.Writer, r Report) error {
	bw := benchfmt.NewWriter(w)
	// benchstat assumes lower is better unless told.
	if err := bw.Write(&benchfmt.UnitMetadata{UnitMetadataKey: benchfmt.UnitMetadataKey{Unit: unitPaymentsPS, Key: "better"}, OrigUnit: unitPaymentsPS, Value: "higher"}); err != nil {
		return err
	}
	var config []benchfmt.Config
	add := func(k, v string) {
		if v = strings.TrimSpace(v); v != "" { // an empty value would mean "unset"
			config = append(config, benchfmt.Config{Key: k, Value: []byte(v), File: true})
		}
	}
	add("goos", goos)
	add("goarch", goarch)
	add("cpu", r.Env.CPU)
	add("pkg", "lnbench")
	var nodes []string
	for _, n := range r.Nodes {
		nodes = append(nodes, specName(n))
	}
	add("node", strings.Join(nodes, ", "))
	add("backend", r.Backend)
	add("db", r.Scenario.Node.DBBackend)
	inv := float64(max(1, r.Scenario.Job.InvocationCount))
	for _, c := range r.Cases {
		name := benchName(r.Scenario.Name, c.ID)
		for _, it := range c.Iterations {
			if !it.Complete || it.Payments == 0 {
				continue // left out of the statistics too
			}
			res := &benchfmt.Result{Config: config, Name: benchfmt.Name(name), Iters: it.Payments, Values: []benchfmt.Value{
				{Value: sig(it.Seconds * inv / float64(it.Payments)), Unit: unitSecPerOp},
				{Value: sig(it.PaymentsPerSec), Unit: unitPaymentsPS},
				{Value: sig(it.P50Ms), Unit: unitP50},
				{Value: sig(it.P99Ms), Unit: unitP99},
			}}
			if err := bw.Write(res); err != nil {
				return err
			}
		}
	}
	return nil
}

// sig rounds to 6 significant digits: more is clock noise, and the
// writer prints the shortest exact form (184.14548412000002).
func sig(v float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 6, 64), 64)
	return r
}

// benchName is "<scenario>/<case id>" with characters benchfmt splits on
// (spaces) replaced. A run of several node specs has Node=<label> as the
// id's first part, so `benchstat -col /Node results.bench` puts the specs
// side by side.
func benchName(scenario, id string) string {
	n := scenario
	if id != "" {
		n += "/" + id
	}
	return strings.ReplaceAll(n, " ", "_")
}
