// Package stats turns raw measurements (iteration times, payment
// latencies, ...) into BenchmarkDotNet-style summaries and
// criterion-style comparisons.
//
// Every result is a plain value. Functions never panic on empty or tiny
// input; instead they return zero (or NaN where documented) and explain
// themselves in a Warnings field, so a report can show the caveat next to
// the number. Non-finite inputs (NaN, ±Inf) are dropped with a warning
// because a single NaN would otherwise poison every statistic.
package stats
