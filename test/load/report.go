package main

import (
	"debug/buildinfo"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"
)

// row is one level: the service and both ceilings, -runs times each.
type row struct {
	workload string
	conc     int
	service  []result
	http     []result
	storage  []result
}

type halfRow struct {
	workload   string
	rate       float64
	service    []result
	storageP99 time.Duration
}

type report struct {
	half     []halfRow
	opts     options
	about    []string // how the figures were taken, one line each
	dbColumn bool
	rows     []row
	memory   memory
	prefill  *prefillResult
	profiles []profiled
}

func newReport(o options, e *environment) *report {
	r := &report{opts: o, dbColumn: e.cpu.dbID > 0}
	runs := "1 run"
	if o.runs > 1 {
		runs = fmt.Sprintf("%d runs, each interleaved (service, HTTP ceiling, storage ceiling); every column is the median over the runs, with min–max beside throughput; errors are summed over the runs", o.runs)
	}
	load := loadAverage()
	r.about = []string{
		"store: " + o.store + "; service " + measured(o),
		"command: `go run -C test/load . " + strings.Join(masked(os.Args[1:]), " ") + "`",
		"machine: " + machine(),
		fmt.Sprintf("load average when the run began: %.2f (%s)", load, quiet(load)),
		fmt.Sprintf("each level: %s (W3 %s), %s", o.duration, 3*o.duration, runs),
		fmt.Sprintf("CPU per report: utime+stime of the process (/proc/PID/stat, %d ticks/s, %s) read just before and after each run, ÷ the run's successful reports; resolution %s per run, spread over its reports",
			e.cpu.hz, e.cpu.source, time.Second/time.Duration(e.cpu.hz)),
	}
	if r.dbColumn {
		r.about = append(r.about, fmt.Sprintf("DB CPU: the database server, PID %d (%s), over the same runs; it counts all of that server's work", e.cpu.dbID, procName(e.cpu.dbID)))
	} else if o.store == "sqlite" {
		r.about = append(r.about, "SQLite runs inside the service, so its CPU is in the service's column")
	} else {
		r.about = append(r.about, "the database server's CPU is not measured: give -db-pid (or MARIADB_PID)")
	}
	if len(o.env) > 0 {
		r.about = append(r.about, "settings given to the service: `"+strings.Join(masked(o.env), "` `")+"`")
	}
	return r
}

// measured names the build measured: the checkout's commit, or with -bin
// the commit the binary was built from (its build information).
func measured(o options) string {
	if o.bin == "" {
		return commit(o.root)
	}
	info, err := buildinfo.ReadFile(o.bin)
	if err != nil {
		return "binary " + o.bin + " (no build information: " + err.Error() + ")"
	}
	rev, modified := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		return "binary " + o.bin + " (built without version control information)"
	}
	c := "binary " + o.bin + " built from commit " + rev[:min(7, len(rev))]
	if modified {
		c += " with uncommitted changes"
	}
	return c
}

// commit names the checkout's commit, and says when the tree differs
// from it: figures from uncommitted code cannot be traced later.
func commit(root string) string {
	out, err := exec.Command("git", "-C", root, "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "commit unknown"
	}
	c := "commit " + strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "-C", root, "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(st) > 0 {
		c += " with uncommitted changes"
	}
	return c
}

// busy says whether other work held the cores: a load average of a fifth
// of a core each, before the run starts, already moves the figures.
func busy(load float64) bool { return load >= 0.2*float64(runtime.NumCPU()) }

func quiet(load float64) string {
	if busy(load) {
		return "BUSY: other work shares the cores; do not take these figures for the record"
	}
	return "quiet"
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

// num prints a rate to the digits that mean something.
func num(x float64) string {
	if x >= 100 {
		return fmt.Sprintf("%.0f", x)
	}
	return fmt.Sprintf("%.1f", x)
}

// rate is the median throughput of the runs, and their range when there
// are several.
func rate(rs []result) string {
	s := num(medianOf(rs, throughput))
	if len(rs) > 1 {
		v := each(rs, throughput)
		lo, hi := v[0], v[0]
		for _, x := range v {
			lo, hi = min(lo, x), max(hi, x)
		}
		s += " (" + num(lo) + "–" + num(hi) + ")"
	}
	return s
}

func (r *report) header() string {
	db, dash := "", ""
	if r.dbColumn {
		db, dash = " DB CPU µs/report |", "---|"
	}
	return "| workload | c | service req/s | p50 ms | p90 ms | p99 ms | errors | service CPU µs/report |" + db +
		" peak RSS MiB | HTTP ceiling req/s | storage ceiling req/s | storage p99 ms | service / min(a,b) |\n" +
		"|---|---|---|---|---|---|---|---|" + dash + "---|---|---|---|---|\n"
}

func (r *report) line(i int) string {
	x := r.rows[i]
	ratios := make([]float64, len(x.service))
	for k := range x.service {
		if ceiling := min(x.http[k].Throughput, x.storage[k].Throughput); ceiling > 0 {
			ratios[k] = x.service[k].Throughput / ceiling
		}
	}
	return fmt.Sprintf("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %.2f |\n",
		x.workload, x.conc, rate(x.service), ms(medianDur(x.service, p50)), ms(medianDur(x.service, p90)),
		ms(medianDur(x.service, p99)), errorsOf(x.service), r.cpu(x.service),
		mib(int64(medianOf(x.service, peakRSS))), rate(x.http), rate(x.storage), ms(medianDur(x.storage, p99)), median(ratios))
}

// cpu is the median service CPU per report of the runs, and the
// database server's in a cell of its own when it is measured.
func (r *report) cpu(rs []result) string {
	s := fmt.Sprintf("%.0f", medianOf(rs, cpuPerReport))
	if r.dbColumn {
		s += fmt.Sprintf(" | %.0f", medianOf(rs, dbCPUPerReport))
	}
	return s
}

// cpuNote is r.cpu in a sentence.
func (r *report) cpuNote(rs []result) string {
	s := fmt.Sprintf("%.0f µs service CPU/report", medianOf(rs, cpuPerReport))
	if r.dbColumn {
		s += fmt.Sprintf(" + %.0f µs database server", medianOf(rs, dbCPUPerReport))
	}
	return s
}

func (r *report) print(w io.Writer, i int) {
	if i == 0 {
		fmt.Fprint(w, r.header())
	}
	fmt.Fprint(w, r.line(i))
}

func (r *report) write(path string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Load results (%s)\n\n", time.Now().UTC().Format(time.RFC3339))
	for _, a := range r.about {
		fmt.Fprintf(&b, "- %s\n", a)
	}
	b.WriteString("\n" + r.header())
	for i := range r.rows {
		b.WriteString(r.line(i))
	}
	r.writeHalf(&b)
	r.writeMemory(&b)
	if p := r.prefill; p != nil {
		empty, filled := medianOf(p.Empty, throughput), medianOf(p.Filled, throughput)
		fmt.Fprintf(&b, "\nPrefilled table: %d rows inserted in %s. W1 c=32: empty %s req/s (%s), filled %s req/s (%s); ratio %.2f\n",
			p.Rows, p.FillTime.Round(time.Second), rate(p.Empty), r.cpuNote(p.Empty), rate(p.Filled), r.cpuNote(p.Filled), filled/empty)
	}
	r.writeProfiles(&b)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

func (r *report) writeHalf(b *strings.Builder) {
	if len(r.half) == 0 {
		return
	}
	db, dash := "", ""
	if r.dbColumn {
		db, dash = " DB CPU µs/report |", "---|"
	}
	b.WriteString("\nHalf of the maximum throughput at c=32, up to 128 in flight:\n\n| workload | rate req/s | p50 ms | p99 ms | errors | service CPU µs/report |" +
		db + " storage ceiling p99 ms (c=32) | p99 / storage p99 |\n|---|---|---|---|---|---|" + dash + "---|---|\n")
	for _, h := range r.half {
		p := medianDur(h.service, p99)
		fmt.Fprintf(b, "| %s | %.0f | %s | %s | %s | %s | %s | %.2f |\n", h.workload, h.rate, ms(medianDur(h.service, p50)), ms(p),
			errorsOf(h.service), r.cpu(h.service), ms(h.storageP99), float64(p)/float64(max(h.storageP99, 1)))
	}
}

func (r *report) writeMemory(b *strings.Builder) {
	if len(r.memory.PeakAfter) == 0 {
		return
	}
	fmt.Fprintf(b, "\nW3 memory: body %s MiB; RSS before %s MiB; errors %d\n\n| after request | peak RSS MiB | growth / body |\n|---|---|---|\n",
		mib(int64(r.memory.BodyBytes)), mib(r.memory.BaseRSS), r.memory.Errors)
	var keys []int
	for k := range r.memory.PeakAfter {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	for _, k := range keys {
		p := r.memory.PeakAfter[k]
		fmt.Fprintf(b, "| %d | %s | %.2f |\n", k, mib(p), float64(p-r.memory.BaseRSS)/float64(r.memory.BodyBytes))
	}
}

func (r *report) writeProfiles(b *strings.Builder) {
	for _, p := range r.profiles {
		fmt.Fprintf(b, "\n## Profile: %s c=%d (%s)\n\n", p.workload, p.conc, r.opts.store)
		fmt.Fprintf(b, "%d s of CPU and allocation profile in an extra run, not one of the table's: %s req/s, %s, %d errors. Files: `%s`.\n",
			p.seconds, num(p.during.Throughput), r.cpuNote([]result{p.during}), p.during.Errors, strings.Join(p.files, "`, `"))
		for _, t := range p.tops {
			fmt.Fprintf(b, "\n%s:\n\n```text\n%s\n```\n", t.title, t.text)
		}
	}
}
