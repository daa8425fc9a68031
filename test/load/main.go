// Command load measures the service against the ceilings of the machine it
// runs on. One command, against the embedded default or MariaDB:
//
//	go run ./test/load                          # SQLite (embedded default)
//	go run ./test/load -store mysql -dsn 'root@tcp(127.0.0.1:3306)/'
//
// It builds and starts disbursementd in a temp directory, adds a user,
// takes a token, and drives W1 (full report, no file), W2 (with a 200 KB
// PDF) and W3 (with a 20 MiB PDF) at each concurrency, through vegeta. In
// the same run it measures (a) the HTTP ceiling, the same bodies sent to a
// minimal net/http handler that reads and discards them, and (b) the
// storage ceiling, the same rows inserted with database/sql prepared
// statements and the same files written and fsynced, with no HTTP or JSON.
// It prints throughput, p50/p90/p99, errors, the server's peak RSS, and
// the service's throughput as a fraction of min(a, b), and writes them to
// -out.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

type options struct {
	root                string // the service's checkout
	store, dsn, out     string
	concurrency         []int
	w3Concurrency       []int
	duration            time.Duration
	w3Requests, prefill int
	workloads           string
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "sink" {
		runSink(os.Args[2])
		return
	}
	var o options
	var conc, w3conc string
	flag.StringVar(&o.store, "store", "sqlite", "sqlite or mysql")
	flag.StringVar(&o.dsn, "dsn", os.Getenv("DISB_TEST_MYSQL_DSN"), "MySQL server DSN (a fresh database is created on it)")
	flag.StringVar(&o.out, "out", "", "results file (default test/load/results/latest-STORE.md in the checkout)")
	flag.StringVar(&conc, "c", "1,8,32,128", "concurrencies for W1 and W2")
	flag.StringVar(&w3conc, "c3", "1,8", "concurrencies for W3 (20 MiB bodies)")
	flag.DurationVar(&o.duration, "d", 5*time.Second, "duration of each W1/W2 run")
	flag.IntVar(&o.w3Requests, "n3", 50, "sequential W3 requests for the memory check")
	flag.IntVar(&o.prefill, "prefill", 0, "also measure W1 at c=32 with this many rows already in the table (e.g. 1000000)")
	flag.StringVar(&o.workloads, "w", "W1,W2,W3", "workloads to run")
	flag.Parse()
	o.concurrency, o.w3Concurrency = ints(conc), ints(w3conc)
	root, err := repoRoot()
	if err != nil {
		log.Fatal(err)
	}
	o.root = root
	if o.out == "" {
		o.out = filepath.Join(root, "test", "load", "results", "latest-"+o.store+".md")
	}
	o.out = callerPath(o.out)
	if err := run(o); err != nil {
		log.Fatal(err)
	}
}

// callerPath resolves a relative path against the directory the command
// was typed in. `go run -C test/load .` runs the tool in test/load but
// leaves the shell's PWD as it was, and a user who typed -out x.md from the
// checkout's root means the root's x.md.
func callerPath(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	if pwd := os.Getenv("PWD"); filepath.IsAbs(pwd) {
		if fi, err := os.Stat(pwd); err == nil && fi.IsDir() {
			return filepath.Join(pwd, p)
		}
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

func ints(s string) []int {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil && n > 0 {
			out = append(out, n)
		}
	}
	return out
}

func run(o options) error {
	env, err := newEnvironment(o)
	if err != nil {
		return err
	}
	defer env.close()
	rep := &report{opts: o, machine: machine()}
	if strings.Contains(o.workloads, "W3") {
		// First, on the fresh process: a Go heap grown by earlier runs is
		// not handed back at once and would hide the growth.
		mem, err := env.w3Memory(o.w3Requests)
		if err != nil {
			return err
		}
		rep.memory = mem
	}
	for _, w := range workloads(o) {
		if !strings.Contains(o.workloads, w.name) {
			continue
		}
		for _, c := range w.conc {
			log.Printf("%s c=%d", w.name, c)
			svc, err := env.attackService(w, c)
			if err != nil {
				return err
			}
			sink, err := env.attackSink(w, c)
			if err != nil {
				return err
			}
			st, err := env.storageCeiling(w, c)
			if err != nil {
				return err
			}
			rep.rows = append(rep.rows, row{workload: w.name, conc: c, service: svc, http: sink, storage: st})
			rep.print(os.Stdout, len(rep.rows)-1)
			if c == 32 && w.name != "W3" {
				half, err := env.halfLoad(w, svc.Throughput)
				if err != nil {
					return err
				}
				rep.half = append(rep.half, halfRow{workload: w.name, rate: svc.Throughput / 2, service: half, storageP99: st.P99})
				log.Printf("%s at half load (%.0f req/s): p99 %s ms; storage ceiling p99 at c=32 %s ms", w.name, svc.Throughput/2, ms(half.P99), ms(st.P99))
			}
		}
	}
	if o.prefill > 0 {
		pf, err := env.prefilled(o.prefill)
		if err != nil {
			return err
		}
		rep.prefill = &pf
	}
	if err := rep.write(o.out); err != nil {
		return err
	}
	fmt.Printf("\nresults written to %s\n", o.out)
	return nil
}
