package main

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// latencies summarises durations measured outside vegeta.
func latencies(d []time.Duration) (p50, p90, p99 time.Duration) {
	if len(d) == 0 {
		return
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	at := func(q float64) time.Duration { return d[min(len(d)-1, int(q*float64(len(d))))] }
	return at(0.50), at(0.90), at(0.99)
}

// median is the middle value of xs (the mean of the middle two for an
// even count): with a few repetitions, one disturbed run does not move it.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
}

// each maps the runs of one level to one column's values.
func each(rs []result, f func(result) float64) []float64 {
	out := make([]float64, len(rs))
	for i, r := range rs {
		out[i] = f(r)
	}
	return out
}

// medianOf is the median of one column over the runs.
func medianOf(rs []result, f func(result) float64) float64 { return median(each(rs, f)) }

// medianDur is the median of a duration column over the runs.
func medianDur(rs []result, f func(result) time.Duration) time.Duration {
	return time.Duration(medianOf(rs, func(r result) float64 { return float64(f(r)) }))
}

// errorsOf is the errors of all runs together: one failed request in any
// run is worth seeing. Beside the count, which answers they were ("503
// ×12, 0 ×1": an HTTP status, 0 for no answer), when the runs recorded it.
func errorsOf(rs []result) string {
	var n uint64
	by := map[string]uint64{}
	for _, r := range rs {
		n += r.Errors
		for code, k := range r.Answers {
			by[code] += k
		}
	}
	if len(by) == 0 {
		return strconv.FormatUint(n, 10)
	}
	codes := slices.Sorted(maps.Keys(by))
	parts := make([]string, len(codes))
	for i, c := range codes {
		parts[i] = fmt.Sprintf("%s ×%d", c, by[c])
	}
	return fmt.Sprintf("%d (%s)", n, strings.Join(parts, ", "))
}

// Column accessors, for medianOf.
func throughput(r result) float64     { return r.Throughput }
func p50(r result) time.Duration      { return r.P50 }
func p90(r result) time.Duration      { return r.P90 }
func p99(r result) time.Duration      { return r.P99 }
func peakRSS(r result) float64        { return float64(r.PeakRSS) }
func cpuPerReport(r result) float64   { return perReport(r.CPU, r.OK) }
func dbCPUPerReport(r result) float64 { return perReport(r.DBCPU, r.OK) }

// perReport is CPU time per successful report, in µs.
func perReport(cpu time.Duration, ok uint64) float64 {
	if ok == 0 {
		return 0
	}
	return float64(cpu.Microseconds()) / float64(ok)
}
