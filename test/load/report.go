package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"
)

type row struct {
	workload      string
	conc          int
	service, http result
	storage       result
}

type halfRow struct {
	workload   string
	rate       float64
	service    result
	storageP99 time.Duration
}

type report struct {
	half    []halfRow
	opts    options
	machine string
	rows    []row
	memory  memory
	prefill *prefillResult
}

func machine() string {
	model := "unknown CPU"
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(l, "model name") {
				model = strings.TrimSpace(strings.SplitN(l, ":", 2)[1])
				break
			}
		}
	}
	mem := ""
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		mem = strings.Fields(strings.SplitN(string(data), "\n", 2)[0])[1] + " kB RAM"
	}
	return fmt.Sprintf("%s, %d cores, %s, %s/%s, %s", model, runtime.NumCPU(), mem, runtime.GOOS, runtime.GOARCH, runtime.Version())
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d.Microseconds())/1000) }

func mib(b int64) string { return fmt.Sprintf("%.1f", float64(b)/(1<<20)) }

const header = "| workload | c | service req/s | p50 ms | p90 ms | p99 ms | errors | peak RSS MiB | HTTP ceiling req/s | storage ceiling req/s | storage p99 ms | service / min(a,b) |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n"

func (r *report) line(i int) string {
	x := r.rows[i]
	ceiling := min(x.http.Throughput, x.storage.Throughput)
	frac := 0.0
	if ceiling > 0 {
		frac = x.service.Throughput / ceiling
	}
	return fmt.Sprintf("| %s | %d | %.1f | %s | %s | %s | %d | %s | %.1f | %.1f | %s | %.2f |\n",
		x.workload, x.conc, x.service.Throughput, ms(x.service.P50), ms(x.service.P90), ms(x.service.P99),
		x.service.Errors, mib(x.service.PeakRSS), x.http.Throughput, x.storage.Throughput, ms(x.storage.P99), frac)
}

func (r *report) print(w io.Writer, i int) {
	if i == 0 {
		fmt.Fprint(w, header)
	}
	fmt.Fprint(w, r.line(i))
}

func (r *report) write(path string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Load results (%s)\n\nstore: %s; machine: %s; run %s each (W3 %s)\n\n", time.Now().UTC().Format(time.RFC3339),
		r.opts.store, r.machine, r.opts.duration, 3*r.opts.duration)
	b.WriteString(header)
	for i := range r.rows {
		b.WriteString(r.line(i))
	}
	if len(r.half) > 0 {
		b.WriteString("\nHalf of the maximum throughput at c=32, up to 128 in flight:\n\n| workload | rate req/s | p50 ms | p99 ms | errors | storage ceiling p99 ms (c=32) | p99 / storage p99 |\n|---|---|---|---|---|---|---|\n")
		for _, h := range r.half {
			fmt.Fprintf(&b, "| %s | %.0f | %s | %s | %d | %s | %.2f |\n", h.workload, h.rate, ms(h.service.P50), ms(h.service.P99),
				h.service.Errors, ms(h.storageP99), float64(h.service.P99)/float64(max(h.storageP99, 1)))
		}
	}
	if len(r.memory.PeakAfter) > 0 {
		fmt.Fprintf(&b, "\nW3 memory: body %s MiB; RSS before %s MiB; errors %d\n\n| after request | peak RSS MiB | growth / body |\n|---|---|---|\n",
			mib(int64(r.memory.BodyBytes)), mib(r.memory.BaseRSS), r.memory.Errors)
		var keys []int
		for k := range r.memory.PeakAfter {
			keys = append(keys, k)
		}
		sort.Ints(keys)
		for _, k := range keys {
			p := r.memory.PeakAfter[k]
			fmt.Fprintf(&b, "| %d | %s | %.2f |\n", k, mib(p), float64(p-r.memory.BaseRSS)/float64(r.memory.BodyBytes))
		}
	}
	if p := r.prefill; p != nil {
		fmt.Fprintf(&b, "\nPrefilled table: %d rows inserted in %s. W1 c=32: empty %.1f req/s, filled %.1f req/s (ratio %.2f)\n",
			p.Rows, p.FillTime.Round(time.Second), p.Empty.Throughput, p.Filled.Throughput, p.Filled.Throughput/p.Empty.Throughput)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
