package main

import (
	"fmt"
	"log"
	"os"
	"slices"
	"strings"
)

// run measures every chosen level -runs times and writes the report.
func run(o options) error {
	env, err := newEnvironment(o)
	if err != nil {
		return err
	}
	defer env.close()
	rep := newReport(o, env)
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
		profileAt := 0
		if o.profileDir != "" && slices.Contains(strings.Split(o.profileWorkloads, ","), w.name) {
			profileAt = profileConc(w.conc, o.profileConc)
		}
		for _, c := range w.conc {
			x, err := env.level(w, c)
			if err != nil {
				return err
			}
			rep.rows = append(rep.rows, x)
			rep.print(os.Stdout, len(rep.rows)-1)
			if c == 32 && w.name != "W3" {
				h, err := env.halfLevel(w, x)
				if err != nil {
					return err
				}
				rep.half = append(rep.half, h)
			}
			if c == profileAt {
				log.Printf("%s c=%d: profiling for %s in an extra run", w.name, c, o.profileTime)
				p, err := env.profile(w, c)
				if err != nil {
					return err
				}
				rep.profiles = append(rep.profiles, p)
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

// level measures w at concurrency c -runs times. Each run measures the
// service, then the HTTP ceiling, then the storage ceiling, so that a
// drift of the machine over the level touches all three alike.
func (e *environment) level(w workload, c int) (row, error) {
	x := row{workload: w.name, conc: c}
	for i := 1; i <= e.o.runs; i++ {
		log.Printf("%s c=%d%s", w.name, c, runOf(i, e.o.runs))
		svc, err := e.attackService(w, c, 0)
		if err != nil {
			return x, err
		}
		sink, err := e.attackSink(w, c)
		if err != nil {
			return x, err
		}
		st, err := e.storageCeiling(w, c)
		if err != nil {
			return x, err
		}
		x.service, x.http, x.storage = append(x.service, svc), append(x.http, sink), append(x.storage, st)
	}
	return x, nil
}

// halfLevel runs w -runs times at half the median throughput of x (its
// c=32 level).
func (e *environment) halfLevel(w workload, x row) (halfRow, error) {
	h := halfRow{workload: w.name, rate: medianOf(x.service, throughput) / 2, storageP99: medianDur(x.storage, p99)}
	for i := 1; i <= e.o.runs; i++ {
		r, err := e.halfLoad(w, 2*h.rate)
		if err != nil {
			return h, err
		}
		h.service = append(h.service, r)
		log.Printf("%s at half load (%.0f req/s)%s: p99 %s ms; storage ceiling p99 at c=32 %s ms",
			w.name, h.rate, runOf(i, e.o.runs), ms(r.P99), ms(h.storageP99))
	}
	return h, nil
}

func runOf(i, n int) string {
	if n == 1 {
		return ""
	}
	return fmt.Sprintf(", run %d/%d", i, n)
}
