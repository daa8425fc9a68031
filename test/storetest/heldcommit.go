package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/faultproxy"
)

// HeldCommit is what RunHeldCommitBatch found: the first report's answer
// and its retry's, for the caller's own checks.
type HeldCommit struct {
	First, Retry error
}

// RunHeldCommitBatch is issue 25's "a retry during a held COMMIT": replica
// A stores a report whose COMMIT the fault proxy holds (hold, longer than
// the lock wait bound); meanwhile replica B (one group-commit writer)
// gets the report's retry, with the same key, inside a batch of 30 other
// reports. The retry may wait on A's key (one server, or one Galera node)
// or race it (two Galera nodes), but its batch-mates do not share its
// fate: all 30 are stored, once each; and when everything has settled the
// key names one row. dsnA and dsnB are the two replicas' DSNs (each
// reaches the server through a proxy of its own here), check counts rows
// straight on the database.
func RunHeldCommitBatch(t *testing.T, dsnA, dsnB, check string, hold time.Duration) HeldCommit {
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	route := func(dsn string) (*faultproxy.MySQL, string) {
		cfg, err := mysqldrv.ParseDSN(dsn)
		if err != nil {
			t.Fatal(err)
		}
		p := faultproxy.StartMySQL(t, cfg.Addr)
		return p, p.Route(t, dsn)
	}
	proxyA, viaA := route(dsnA)
	proxyB, viaB := route(dsnB)
	a := MustOpen(t, gormstore.MySQL, viaA, gormstore.Options{})
	b := MustOpen(t, gormstore.MySQL, viaB, gormstore.Options{BatchWriters: 1})

	var out HeldCommit
	heldA := proxyA.HoldNext("COMMIT", hold)
	firstDone := make(chan struct{})
	key := record("acme", "held-first", now)
	go func() {
		defer close(firstDone)
		actx, cancel := context.WithTimeout(ctx, hold+30*time.Second)
		defer cancel()
		_, _, out.First = a.StoreReport(actx, staged(t, "acme", "CR-HELD", now), key)
	}()
	<-heldA.Seen
	// A short hold of B's writer on a first report, so that the retry and
	// the 30 queue behind it and go out as one batch.
	plug := proxyB.HoldNext("COMMIT", 2*time.Second)
	plugDone := make(chan error, 1)
	go func() {
		_, _, err := b.StoreReport(ctx, staged(t, "acme", "CR-PLUG", now), record("acme", "held-plug", now))
		plugDone <- err
	}()
	<-plug.Seen
	const others = 30
	errs := storeAll(others+1, func(i int) error {
		rctx, cancel := context.WithTimeout(ctx, hold+30*time.Second)
		defer cancel()
		if i == others {
			retry := key
			retry.Nonce = fmt.Sprintf("%032d", nonces.Add(1))
			_, _, out.Retry = b.StoreReport(rctx, staged(t, "acme", "CR-HELD", now), retry)
			return nil
		}
		_, _, err := b.StoreReport(rctx, staged(t, "acme", fmt.Sprintf("CR-MATE-%d", i), now), record("acme", fmt.Sprintf("held-mate-%d", i), now))
		return err
	})
	if err := <-plugDone; err != nil {
		t.Fatalf("the plug report: %v", err)
	}
	<-firstDone
	if proxyA.Held() == 0 {
		t.Fatal("the first report's COMMIT was not held: the reproduction proves nothing")
	}
	failed := 0
	for i, err := range errs[:others] {
		if err != nil {
			failed++
			t.Errorf("batch-mate %d of the retry: %v", i, err)
		}
	}
	db := mustDB(t, gormstore.MySQL, check)
	count := func(credit string) int64 {
		var n int64
		if err := db.Table(gormstore.StagingTable).Where("numero_credito = ?", credit).Count(&n).Error; err != nil {
			t.Fatal(err)
		}
		return n
	}
	for i := range others {
		if n := count(fmt.Sprintf("CR-MATE-%d", i)); n != 1 {
			t.Errorf("batch-mate %d: %d rows, want 1", i, n)
		}
	}
	if n := count("CR-HELD"); n != 1 {
		t.Errorf("the held report and its retry: %d rows, want 1 (first: %v; retry: %v)", n, out.First, out.Retry)
	}
	if out.Retry != nil && errors.Is(out.Retry, domain.ErrConflict) {
		// A conflict names the record that took the key: the first's.
		t.Logf("the retry met the first report's record: %v", out.Retry)
	}
	t.Logf("first: %v; retry: %v; %d of %d batch-mates failed", out.First, out.Retry, failed, others)
	return out
}

// WaitedOnHeldKey says whether err is what a retry that waited on the
// held report's key may answer through one server or one Galera node: a
// lock wait timeout (nothing of it stored), or, when its batch went in
// multi-row statements and ran again a statement per report after that
// wait (two waits of store.lock_wait_timeout after the plug's hold, as
// long as the held COMMIT's), the first's record, committed meanwhile
// (ErrConflict: the partner gets the first answer); never "outcome
// unknown".
func WaitedOnHeldKey(err error) bool {
	return (IsLockWait(err) || errors.Is(err, domain.ErrConflict)) && !errors.Is(err, domain.ErrOutcomeUnknown)
}

// IsLockWait says whether err carries MySQL's lock wait timeout (1205).
func IsLockWait(err error) bool {
	var me *mysqldrv.MySQLError
	return errors.As(err, &me) && me.Number == 1205
}
