package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/faultproxy"
)

// RunReservationRace is the late COMMIT against the sweep, between two
// replicas: replica A stores a report naming a file while the fault proxy
// holds its COMMIT; meanwhile replica B's sweep tombstones the file's
// name. Whoever the database lets win, the file's fate and the row agree:
// a tombstone taken means no row names the file (A's report fails, its
// outcome known), a row stored means the tombstone was refused. On one
// server (or one Galera node) B waits on A's reservation and is refused; on two
// Galera nodes nothing waits, B's tombstone commits first and A's COMMIT
// loses certification, is run again and meets the tombstone. It returns
// whether B's tombstone was taken.
func RunReservationRace(t *testing.T, dsnA, dsnB, check string) bool {
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	cfg, err := mysqldrv.ParseDSN(dsnA)
	if err != nil {
		t.Fatal(err)
	}
	proxy := faultproxy.StartMySQL(t, cfg.Addr)
	a := MustOpen(t, gormstore.MySQL, proxy.Route(t, dsnA), gormstore.Options{})
	b := MustOpen(t, gormstore.MySQL, dsnB, gormstore.Options{})
	r := staged(t, "acme", "CR-RACE", now)
	r.FileName, r.FileSize, r.FileSHA256 = "partner_CR-RACE_x.pdf", 10, "0000000000000000000000000000000000000000000000000000000000000001"
	held := proxy.HoldNext("COMMIT", 8*time.Second)
	stored := make(chan error, 1)
	go func() {
		_, _, err := a.StoreReport(ctx, r, record("acme", "race", now))
		stored <- err
	}()
	select {
	case <-held.Seen:
	case err := <-stored:
		t.Fatalf("the report's COMMIT was not held (it answered %v): the race proves nothing", err)
	}
	gone, err := b.TombstoneFile(ctx, r.FileName)
	if err != nil {
		t.Fatalf("TombstoneFile while the reservation's COMMIT is held: %v", err)
	}
	storeErr := <-stored
	if n := proxy.Held(); n != 1 {
		t.Fatalf("the proxy held %d statements, want the report's COMMIT", n)
	}
	var rows int64
	if err := mustDB(t, gormstore.MySQL, check).Table(gormstore.StagingTable).Where("file_name = ?", r.FileName).Count(&rows).Error; err != nil {
		t.Fatal(err)
	}
	t.Logf("tombstone taken: %v; the report: %v; rows naming the file: %d", gone, storeErr, rows)
	switch {
	case gone && (rows != 0 || storeErr == nil || errors.Is(storeErr, domain.ErrOutcomeUnknown)):
		t.Fatalf("the sweep took the file and the report answered %v with %d row(s) naming it", storeErr, rows)
	case !gone && (rows != 1 || storeErr != nil):
		t.Fatalf("the sweep left the file and the report answered %v with %d row(s)", storeErr, rows)
	}
	return gone
}
