package gormstore_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/storetest"
)

// TestWritersOnAGaleraNode: with store.batch_writers left to auto (the
// service's options), a store on a Galera node lets one writer take
// batches once its first batch has asked the server, and every report
// is still stored, a batch in multi-row statements read back by their
// ids; with the writers set, every writer stays.
func TestWritersOnAGaleraNode(t *testing.T) {
	t.Parallel()
	dsns := storetest.MustCreateGaleraDatabase(t)
	auto := storetest.Options(gormstore.MySQL)
	if auto.BatchWriters != 2 || auto.GaleraWriters != 1 {
		t.Fatalf("auto on MySQL: %d writers, %d on Galera; want 2 and 1", auto.BatchWriters, auto.GaleraWriters)
	}
	st := storetest.MustOpen(t, gormstore.MySQL, dsns[0], gormstore.Options{GaleraWriters: auto.GaleraWriters})
	if got := st.Writers(); got != 2 {
		t.Fatalf("before the first batch: %d writers, want 2", got)
	}
	storeSome(t, st, "galera-auto", 40)
	if got := st.Writers(); got != 1 {
		t.Fatalf("on a Galera node after a batch: %d writers, want 1", got)
	}
	// A Galera node promises only unique auto-increment ids (lock mode
	// 2): a batch's staging INSERTs return their ids (MariaDB's
	// RETURNING), and nothing is read back.
	mustStoreOneBatch(t, st, "GALERA", 40)
	if gormstore.RowReturns(st) < 1 || gormstore.RowChecks(st) != 0 || st.RowMisses() != 0 || gormstore.RowBatches(st) < 1 {
		t.Fatalf("on a Galera node: %d chunks' ids returned, %d read back, %d missed, %d multi-row batches; want some, none, none, some",
			gormstore.RowReturns(st), gormstore.RowChecks(st), st.RowMisses(), gormstore.RowBatches(st))
	}
	// Where ids are computed (a MySQL 8 under lock mode 2; here the
	// node's own step, set as a test's), each chunk is read back, and
	// every id held its own row.
	computed := storetest.MustOpen(t, gormstore.MySQL, dsns[0], gormstore.Options{BatchWriters: 1}) // storeOneBatch holds one writer's batch
	var step int64
	if err := gormstore.CommitPool(computed).QueryRow("SELECT @@auto_increment_increment").Scan(&step); err != nil {
		t.Fatal(err)
	}
	gormstore.SetRowStep(computed, step)
	mustStoreOneBatch(t, computed, "GALCOMP", 40)
	if gormstore.RowChecks(computed) < 1 || computed.RowMisses() != 0 || gormstore.RowBatches(computed) < 1 {
		t.Fatalf("on a Galera node, ids computed with step %d: %d chunks read back, %d missed, %d multi-row batches; want some, none, some",
			step, gormstore.RowChecks(computed), computed.RowMisses(), gormstore.RowBatches(computed))
	}
	set := storetest.MustOpen(t, gormstore.MySQL, dsns[1], gormstore.Options{BatchWriters: 3})
	storeSome(t, set, "galera-set", 10)
	if got := set.Writers(); got != 3 {
		t.Fatalf("store.batch_writers 3 on a Galera node: %d writers, want 3", got)
	}
}

// TestWritersOnMySQL: on a server without wsrep, auto keeps 2 writers
// after the first batch.
func TestWritersOnMySQL(t *testing.T) {
	t.Parallel()
	auto := storetest.Options(gormstore.MySQL)
	st := storetest.MustOpen(t, gormstore.MySQL, storetest.MustCreateDatabase(t), gormstore.Options{GaleraWriters: auto.GaleraWriters})
	storeSome(t, st, "mysql-auto", 10)
	if got := st.Writers(); got != 2 {
		t.Fatalf("MariaDB without wsrep after a batch: %d writers, want 2", got)
	}
}

// storeSome stores n reports at once and reads each back by its key.
func storeSome(t *testing.T, st *gormstore.Store, prefix string, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	errs := make(chan error, n)
	for i := range n {
		key := fmt.Sprintf("%s-%d", prefix, i)
		r := fullReport(t, fmt.Sprintf("CR-%d", i))
		go func() {
			_, _, err := st.StoreReport(ctx, r, recordT(key, r.ReceivedAt))
			errs <- err
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		if _, err := st.GetKey(ctx, "bench", domain.KeyHash(fmt.Sprintf("%s-%d", prefix, i), "")); err != nil {
			t.Fatalf("report %d: %v", i, err)
		}
	}
}
