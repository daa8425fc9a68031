package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/domain"
)

// storageCeiling inserts the same rows with a plain prepared statement and
// writes the same files with fsync (file and directory), at concurrency c,
// with no HTTP, JSON, validation or idempotency.
func (e *environment) storageCeiling(w workload, c int) (result, error) {
	sqlDB, err := e.openCeilingStore()
	if err != nil {
		return result{}, err
	}
	defer sqlDB.Close()
	sr, _, err := staged(nil)
	if err != nil {
		return result{}, err
	}
	query, args := gormstore.StagingInsert(e.driver, domain.DefaultCatalogue(), sr)
	credit, err := sentinelIndex(args)
	if err != nil {
		return result{}, err
	}
	stmt, err := sqlDB.Prepare(query)
	if err != nil {
		return result{}, err
	}
	defer stmt.Close()
	dir := filepath.Join(e.dir, "ceiling-files", w.name, fmt.Sprint(c))
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return result{}, err
	}
	var (
		mu    sync.Mutex
		lats  []time.Duration
		errs  uint64
		wg    sync.WaitGroup
		start = time.Now()
		stop  = start.Add(w.duration)
	)
	for worker := 0; worker < c; worker++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := append([]any(nil), args...)
			for i := 0; time.Now().Before(stop); i++ {
				t0 := time.Now()
				a[credit] = fmt.Sprintf("C%d-%d-%d", e.run%1_000_000, worker, i)
				err := writeFile(dir, w.file)
				if err == nil {
					_, err = stmt.ExecContext(context.Background(), a...)
				}
				d := time.Since(t0)
				mu.Lock()
				if err != nil {
					errs++
				} else {
					lats = append(lats, d)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	// The ceiling's files are its own and nothing reads them again: each
	// run starts from an empty directory and leaves none behind.
	if err := os.RemoveAll(dir); err != nil {
		return result{}, err
	}
	p50, p90, p99 := latencies(lats)
	return result{Requests: uint64(len(lats)) + errs, Throughput: float64(len(lats)) / elapsed.Seconds(),
		P50: p50, P90: p90, P99: p99, Errors: errs}, nil
}

// writeFile writes data durably as the service does: exclusive create,
// write, fsync, close, fsync of the directory.
func writeFile(dir string, data []byte) error {
	if data == nil {
		return nil
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	f, err := os.OpenFile(filepath.Join(dir, hex.EncodeToString(b[:])), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o640)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := errors.Join(f.Sync(), f.Close()); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	return errors.Join(d.Sync(), d.Close())
}

// prefillResult compares W1 at c=32 on an empty and a filled table, each
// measured -runs times.
type prefillResult struct {
	Rows          int
	FillTime      time.Duration
	Empty, Filled []result
}

// prefilled inserts n rows into the service's own table, then runs W1 at
// c=32 again.
func (e *environment) prefilled(n int) (prefillResult, error) {
	var w1 workload
	for _, w := range workloads(e.o) {
		if w.name == "W1" {
			w1 = w
		}
	}
	empty, err := e.serviceRuns(w1, 32)
	if err != nil {
		return prefillResult{}, err
	}
	saved := e.ceilingDSN
	e.ceilingDSN = e.svcDSN // the service's own database
	sqlDB, err := e.openCeilingStore()
	e.ceilingDSN = saved
	if err != nil {
		return prefillResult{}, err
	}
	defer sqlDB.Close()
	sr, _, err := staged(nil)
	if err != nil {
		return prefillResult{}, err
	}
	query, args := gormstore.StagingInsert(e.driver, domain.DefaultCatalogue(), sr)
	credit, err := sentinelIndex(args)
	if err != nil {
		return prefillResult{}, err
	}
	t0 := time.Now()
	const batch = 5000
	for done := 0; done < n; done += batch {
		tx, err := sqlDB.Begin()
		if err != nil {
			return prefillResult{}, err
		}
		stmt, err := tx.Prepare(query)
		if err != nil {
			return prefillResult{}, err
		}
		for i := done; i < min(n, done+batch); i++ {
			args[credit] = fmt.Sprintf("P%d", i)
			if _, err := stmt.Exec(args...); err != nil {
				_ = tx.Rollback()
				return prefillResult{}, err
			}
		}
		_ = stmt.Close()
		if err := tx.Commit(); err != nil {
			return prefillResult{}, err
		}
	}
	fill := time.Since(t0)
	filled, err := e.serviceRuns(w1, 32)
	return prefillResult{Rows: n, FillTime: fill, Empty: empty, Filled: filled}, err
}

// serviceRuns measures the service alone at concurrency c, -runs times.
func (e *environment) serviceRuns(w workload, c int) ([]result, error) {
	var rs []result
	for i := 1; i <= e.o.runs; i++ {
		r, err := e.attackService(w, c, 0)
		if err != nil {
			return rs, err
		}
		rs = append(rs, r)
	}
	return rs, nil
}

// sentinelIndex finds the numero_credito argument of a staging insert made
// from the fixture, so each row can get its own credit number.
func sentinelIndex(args []any) (int, error) {
	for i, a := range args {
		if a == "SENTINEL-CREDIT" {
			return i, nil
		}
	}
	return 0, errors.New("credit column not found")
}
