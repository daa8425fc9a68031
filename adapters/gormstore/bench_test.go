package gormstore_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/storetest"
)

// The benchmarks choose between drivers and designs: compare runs with
// benchstat (-count=5), never their absolute numbers on a busy machine.

func fullReport(b testing.TB, credit string) domain.StagedReport {
	b.Helper()
	now := time.Now().UTC()
	rep, err := domain.DefaultCatalogue().MapReport(fixture.Members(fixture.FullBody(now, credit, nil)), fixture.FileRules(), now)
	if err != nil {
		b.Fatal(err)
	}
	return domain.StagedReport{Report: rep, ReceivedAt: now, PartnerUser: "bench", PartnerNIT: "900123456-8",
		RequestID: "bench", PayloadSHA256: strings.Repeat("a", 64)}
}

// BenchmarkStagingInsert is the bare staging insert on SQLite, prepared
// once: a durable commit per row (single) or per 64 rows (batch64).
func BenchmarkStagingInsert(b *testing.B) {
	for _, batch := range []int{1, 64} {
		b.Run(fmt.Sprintf("batch%d", batch), func(b *testing.B) {
			path := storetest.SQLitePath(b)
			storetest.MustOpen(b, gormstore.SQLite, path, gormstore.Options{})
			db, err := storetest.OpenSQL(gormstore.SQLite, path)
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			db.SetMaxOpenConns(1)
			query, args := gormstore.StagingInsert(gormstore.SQLite, domain.DefaultCatalogue(), fullReport(b, "SENTINEL"))
			credit := -1
			for i, a := range args {
				if a == "SENTINEL" {
					credit = i
				}
			}
			stmt, err := db.Prepare(query)
			if err != nil {
				b.Fatal(err)
			}
			defer stmt.Close()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i += batch {
				tx, err := db.Begin()
				if err != nil {
					b.Fatal(err)
				}
				txs := tx.Stmt(stmt)
				for j := i; j < min(b.N, i+batch); j++ {
					args[credit] = fmt.Sprintf("CR-%d", j)
					if _, err := txs.Exec(args...); err != nil {
						b.Fatal(err)
					}
				}
				if err := tx.Commit(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkStoreReport is the whole StoreReport of a 92-field report
// through the group commit: one caller at a time (seq), and
// b.SetParallelism(1) and (32) callers per CPU.
func BenchmarkStoreReport(b *testing.B) {
	for _, driver := range []string{gormstore.SQLite, gormstore.MySQL} {
		open := func(b *testing.B, single bool) *gormstore.Store {
			opts := gormstore.Options{}
			if single {
				opts.MaxBatch = 1
			}
			if driver == gormstore.MySQL {
				return storetest.MustOpen(b, driver, storetest.MustCreateDatabase(b), opts)
			}
			return storetest.MustOpen(b, driver, storetest.SQLitePath(b), opts)
		}
		b.Run(driver+"/seq", func(b *testing.B) {
			st := open(b, false)
			r := fullReport(b, "CR-SEQ")
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				storeOne(b, st, r, fmt.Sprintf("seq-%d", i))
			}
		})
		for _, par := range []int{1, 32, -32} {
			name := fmt.Sprintf("%s/par%d", driver, par)
			if par < 0 {
				// The same load with one report per commit: what the group
				// commit saves.
				name = fmt.Sprintf("%s/par%d-maxbatch1", driver, -par)
			}
			b.Run(name, func(b *testing.B) {
				st := open(b, par < 0)
				par := max(par, -par)
				r := fullReport(b, "CR-PAR")
				var n atomic.Int64
				b.SetParallelism(par)
				b.ReportAllocs()
				b.ResetTimer()
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						storeOne(b, st, r, fmt.Sprintf("par-%d", n.Add(1)))
					}
				})
			})
		}
	}
}

func storeOne(b testing.TB, st *gormstore.Store, r domain.StagedReport, key string) {
	if _, _, err := st.StoreReport(context.Background(), r, recordT(key, r.ReceivedAt)); err != nil {
		b.Error(err)
	}
}

func recordT(key string, now time.Time) domain.IdempotencyRecord {
	return domain.IdempotencyRecord{User: "bench", KeyHash: domain.KeyHash(key, ""), PayloadSHA256: strings.Repeat("a", 64),
		State: domain.KeyDone, Nonce: fmt.Sprintf("%032x", key), CreatedAt: now, ExpiresAt: now.Add(24 * time.Hour)}
}

// BenchmarkSweepIndexes is what migration 2's indexes (staging file_name
// and received_at, idempotency state+created_at) cost a stored report:
// StoreReport at SetParallelism(32) with all of them, without each one,
// and without any.
func BenchmarkSweepIndexes(b *testing.B) {
	indexes := map[string]string{"ix_staging_file_name": gormstore.StagingTable, "ix_staging_received": gormstore.StagingTable,
		"ix_idempotency_state_created": "idempotency_keys"}
	variants := [][]string{nil, {"ix_staging_file_name"}, {"ix_staging_received"}, {"ix_idempotency_state_created"},
		{"ix_staging_file_name", "ix_staging_received", "ix_idempotency_state_created"}}
	for _, driver := range []string{gormstore.SQLite, gormstore.MySQL} {
		for _, drop := range variants {
			name := "none"
			if len(drop) == 1 {
				name = drop[0]
			} else if len(drop) > 1 {
				name = "all"
			}
			b.Run(fmt.Sprintf("%s/drop=%s", driver, name), func(b *testing.B) {
				dsn := storetest.SQLitePath(b)
				if driver == gormstore.MySQL {
					dsn = storetest.MustCreateDatabase(b)
				}
				st := storetest.MustOpen(b, driver, dsn, gormstore.Options{})
				db, err := storetest.OpenDB(driver, dsn)
				if err != nil {
					b.Fatal(err)
				}
				for _, ix := range drop {
					q := "DROP INDEX " + ix
					if driver == gormstore.MySQL {
						q += " ON " + indexes[ix]
					}
					if err := db.Exec(q).Error; err != nil {
						b.Fatal(err)
					}
				}
				storetest.CloseDB(db)
				r := fullReport(b, "CR-IX")
				var n atomic.Int64
				b.SetParallelism(32)
				b.ResetTimer()
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						storeOne(b, st, r, fmt.Sprintf("ix-%d", n.Add(1)))
					}
				})
			})
		}
	}
}
