package gormstore_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/faultproxy"
	"github.com/lender/disbursementd/test/storetest"
)

// TestMultiRowBatch: on MariaDB a batch of many reports goes in
// multi-row statements (the 49 queued behind the first report: chunks of
// 48 and 1, the last a one-row statement), and each report
// gets its own id: its row, its record, its file's reservation and its
// event name it. The CI's MariaDB returns each INSERT's ids (RETURNING),
// so neither the auto-increment settings nor the rows are asked; a MySQL
// is asked the settings, and its rows are read back under lock mode 2.
// A batch with a taken key in it runs a statement per report, so the
// taken key is answered as before.
func TestMultiRowBatch(t *testing.T) {
	t.Parallel()
	st := storetest.MustOpen(t, gormstore.MySQL, storetest.MustCreateDatabase(t), gormstore.Options{BatchWriters: 1})
	db := gormstore.Pool(st)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var mode, step int64
	var version string
	if err := db.QueryRowContext(ctx, "SELECT @@innodb_autoinc_lock_mode, @@auto_increment_increment, VERSION()").Scan(&mode, &step, &version); err != nil {
		t.Fatal(err)
	}
	returning := gormstore.ReturningServer(version)
	mustStoreOneBatch(t, st, "ROWS", 50)
	switch {
	case gormstore.RowBatches(st) < 1:
		t.Fatalf("%d batches in multi-row statements, want at least 1", gormstore.RowBatches(st))
	case returning && (gormstore.RowReturns(st) < 2 || gormstore.RowChecks(st) != 0):
		t.Fatalf("%s: %d chunks' ids returned, %d chunks read back; want 2 (48 and 1), 0",
			version, gormstore.RowReturns(st), gormstore.RowChecks(st))
	case !returning && (gormstore.RowReturns(st) != 0 || (gormstore.RowChecks(st) > 0) != (mode > 1)):
		t.Fatalf("%s: %d chunks' ids returned, %d chunks read back; want none, and read back only under lock mode 2 (this server: %d)",
			version, gormstore.RowReturns(st), gormstore.RowChecks(st), mode)
	}

	// A taken key in a batch: the batch runs a statement per report.
	before := gormstore.RowBatches(st)
	var wg sync.WaitGroup
	errs := make([]error, 6)
	for i := range errs {
		key := fmt.Sprintf("again-%d", i%3) // each key twice
		r := fullReport(t, fmt.Sprintf("CR-AGAIN-%d", i))
		wg.Go(func() { _, _, errs[i] = st.StoreReport(ctx, r, recordT(key, r.ReceivedAt)) })
	}
	wg.Wait()
	stored, conflicted := 0, 0
	for _, err := range errs {
		switch {
		case err == nil:
			stored++
		case errors.Is(err, domain.ErrConflict):
			conflicted++
		default:
			t.Fatalf("a report with a taken key: %v", err)
		}
	}
	var rows int64
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+gormstore.StagingTable+" WHERE numero_credito LIKE 'CR-AGAIN-%'").Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if stored != 3 || conflicted != 3 || rows != 3 {
		t.Fatalf("three keys sent twice: %d stored, %d conflicted, %d rows; want 3, 3, 3", stored, conflicted, rows)
	}
	t.Logf("multi-row batches: %d, then %d with the taken keys", before, gormstore.RowBatches(st)-before)
}

// TestMultiRowReadBack: where the server promises only unique ids (lock
// mode 2, as on a Galera node), each chunk's rows are read back by the
// ids computed for them. With the server's step every id holds its own
// row and the batch commits in multi-row statements; with a wrong one
// (SetRowStep) a read-back finds another row or none, the batch runs a
// statement per report, each report still under its own id, and the next
// batch goes a statement per report without trying (the pause).
func TestMultiRowReadBack(t *testing.T) {
	t.Parallel()
	for _, wrong := range []bool{false, true} {
		t.Run(fmt.Sprintf("wrong step %v", wrong), func(t *testing.T) {
			t.Parallel()
			st := storetest.MustOpen(t, gormstore.MySQL, storetest.MustCreateDatabase(t), gormstore.Options{BatchWriters: 1})
			var step int64
			if err := gormstore.Pool(st).QueryRow("SELECT @@auto_increment_increment").Scan(&step); err != nil {
				t.Fatal(err)
			}
			if wrong {
				step++
			}
			gormstore.SetRowStep(st, step)
			mustStoreOneBatch(t, st, fmt.Sprintf("RB%v1", wrong), 40)
			checks, misses, batches := gormstore.RowChecks(st), st.RowMisses(), gormstore.RowBatches(st)
			if checks < 1 || (misses > 0) != wrong || (batches > 0) == wrong {
				t.Fatalf("step %d: %d chunks read back, %d missed, %d multi-row batches; want misses %v", step, checks, misses, batches, wrong)
			}
			mustStoreOneBatch(t, st, fmt.Sprintf("RB%v2", wrong), 40)
			checks2, batches2 := gormstore.RowChecks(st), gormstore.RowBatches(st)
			if wrong && (checks2 != checks || batches2 != 0) {
				t.Fatalf("the batch after a miss: %d more chunks read back, %d multi-row batches; want none, none (paused)", checks2-checks, batches2)
			}
			if !wrong && batches2 <= batches {
				t.Fatalf("a second batch: %d multi-row batches after %d; want one more", batches2, batches)
			}
			t.Logf("step %d: %d chunks read back, %d missed, %d multi-row batches", step, checks2, misses, batches2)
		})
	}
}

// mustStoreOneBatch stores n reports (credit numbers CR-prefix-i, every
// third with a file) in one batch: the first report's batch holds its
// COMMIT until the others are queued behind the store's one writer. Then
// each report's row, record, file reservation and event must name its
// own id.
func mustStoreOneBatch(t *testing.T, st *gormstore.Store, prefix string, n int) {
	t.Helper()
	storeOneBatch(t, st, prefix, n, nil)
}

// storeOneBatch is mustStoreOneBatch, running whileHeld (if not nil) once
// the first report's batch waits at its COMMIT, before the others are
// sent.
func storeOneBatch(t *testing.T, st *gormstore.Store, prefix string, n int, whileHeld func()) {
	t.Helper()
	db := gormstore.Pool(st)
	var once sync.Once
	held, release := make(chan struct{}), make(chan struct{})
	gormstore.SetBeforeCommit(st, func() { once.Do(func() { close(held); <-release }) })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	type answer struct {
		id  int64
		err error
	}
	credit := func(i int) string { return fmt.Sprintf("CR-%s-%d", prefix, i) }
	key := func(i int) string { return fmt.Sprintf("%s-%d", prefix, i) }
	answers := make([]chan answer, n)
	send := func(i int) chan answer {
		r := fullReport(t, credit(i))
		r.RequestID = fmt.Sprintf("req-%s-%d", prefix, i)
		if i%3 == 0 {
			r.FileName, r.FileSize, r.FileSHA256 = fmt.Sprintf("partner_%s_20261129.pdf", credit(i)), 10, "ab"
		}
		ch := make(chan answer, 1)
		go func() {
			id, _, err := st.StoreReport(ctx, r, recordT(key(i), r.ReceivedAt))
			ch <- answer{id, err}
		}()
		return ch
	}
	answers[0] = send(0)
	<-held // the first report's batch waits at its COMMIT
	if whileHeld != nil {
		whileHeld()
	}
	for i := 1; i < n; i++ {
		answers[i] = send(i)
	}
	waitQueued(t, st, n-1)
	close(release)
	ids := map[int64]int{}
	for i, ch := range answers {
		a := <-ch
		if a.err != nil {
			t.Fatalf("report %d: %v", i, a.err)
		}
		ids[a.id] = i
	}
	if len(ids) != n {
		t.Fatalf("%d reports got %d ids", n, len(ids))
	}
	for id, i := range ids {
		var got, file string
		var events, reserved int64
		if err := db.QueryRowContext(ctx, "SELECT numero_credito, COALESCE(file_name, '') FROM "+gormstore.StagingTable+" WHERE id = ?", id).Scan(&got, &file); err != nil {
			t.Fatalf("report %d, id %d: %v", i, id, err)
		}
		rec, err := st.GetKey(ctx, "bench", domain.KeyHash(key(i), ""))
		if err != nil {
			t.Fatal(err)
		}
		if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM report_events WHERE report_id = ?", id).Scan(&events); err != nil {
			t.Fatal(err)
		}
		if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM upload_files WHERE report_id = ? AND file_name = ?", id, file).Scan(&reserved); err != nil {
			t.Fatal(err)
		}
		wantReserved := int64(0)
		if i%3 == 0 {
			wantReserved = 1
		}
		if got != credit(i) || rec.ReportID != id || events != 1 || reserved != wantReserved || (file != "") != (i%3 == 0) {
			t.Errorf("report %d, id %d: row %s file %q, record's report %d, %d events, %d reservations (want %d)",
				i, id, got, file, rec.ReportID, events, reserved, wantReserved)
		}
	}
}

// waitQueued waits until n reports wait for a writer.
func waitQueued(t *testing.T, st *gormstore.Store, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for gormstore.Queued(st) != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d reports queued, want %d", gormstore.Queued(st), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestBatchesOnTheirOwnPool: on MySQL the group commit's batches run on a
// pool of their own, a connection per writer and one more, and only that
// pool prepares their statements; the write pool, which every read and
// write shares, holds none of them (each of its connections would
// otherwise prepare every chunk size it ran: the server's memory).
func TestBatchesOnTheirOwnPool(t *testing.T) {
	t.Parallel()
	st := storetest.MustOpen(t, gormstore.MySQL, storetest.MustCreateDatabase(t), gormstore.Options{BatchWriters: 1})
	if got := gormstore.CommitPool(st).Stats().MaxOpenConnections; got != 2 {
		t.Fatalf("the commit pool of 1 writer opens at most %d connections, want 2", got)
	}
	mustStoreOneBatch(t, st, "OWN", 20)
	write, commit := gormstore.Prepared(st)
	if write != 0 || commit < 4 || gormstore.RowBatches(st) < 1 {
		t.Fatalf("statements prepared: %d on the write pool, %d on the commit pool (%d multi-row batches); want 0 and at least the batch's 4 kinds",
			write, commit, gormstore.RowBatches(st))
	}
	if open := gormstore.CommitPool(st).Stats().OpenConnections; open < 1 || open > 2 {
		t.Fatalf("the commit pool has %d connections open, want 1 or 2", open)
	}
	// Read committed is the commit pool's sessions' own level, set when
	// each connects, not a SET TRANSACTION a batch.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if level, err := gormstore.CommitIsolation(ctx, st); err != nil || level != "READ-COMMITTED" {
		t.Fatalf("a transaction on the commit pool runs at %q (%v), want READ-COMMITTED", level, err)
	}
	var level string
	if err := gormstore.Pool(st).QueryRowContext(ctx, "SELECT VARIABLE_VALUE FROM information_schema.SESSION_VARIABLES WHERE VARIABLE_NAME = 'TX_ISOLATION'").Scan(&level); err != nil || level != "REPEATABLE-READ" {
		t.Fatalf("the write pool's sessions run at %q (%v), want the server's REPEATABLE-READ", level, err)
	}
}

// TestRefusedMultiRowPrepare: a server holding max_prepared_stmt_count
// statements (every client's together) refuses a multi-row statement's
// PREPARE with error 1461, answered here by a proxy in front of MariaDB.
// The batch goes a statement per report and each report is stored once,
// with its own id; the refusal is counted (RowRefusals, the metric
// disbursementd_store_multirow_refused_total) and the next batch goes a
// statement per report without asking the server again (the multi-row
// path paused for a minute), instead of paying a refused PREPARE and a
// rollback each.
func TestRefusedMultiRowPrepare(t *testing.T) {
	t.Parallel()
	dsn := storetest.MustCreateDatabase(t)
	cfg, err := mysqldrv.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	proxy := faultproxy.StartMySQL(t, cfg.Addr)
	st := storetest.MustOpen(t, gormstore.MySQL, proxy.Route(t, dsn), gormstore.Options{BatchWriters: 1})
	mustStoreOneBatch(t, st, "BEFORE", 4)
	if got := gormstore.RowBatches(st); got != 1 {
		t.Fatalf("before the refusal: %d multi-row batches, want 1", got)
	}
	// The first report's statements are prepared and it waits at its
	// COMMIT: the next staging INSERT prepared is the 7-row one.
	storeOneBatch(t, st, "REFUSED", 8, func() {
		proxy.FailNext("INSERT INTO "+gormstore.StagingTable, faultproxy.TooManyStatements)
	})
	if proxy.Failed() != 1 || st.RowRefusals() != 1 || gormstore.RowBatches(st) != 1 {
		t.Fatalf("after a refused PREPARE: %d refused by the proxy, %d counted, %d multi-row batches; want 1, 1, 1",
			proxy.Failed(), st.RowRefusals(), gormstore.RowBatches(st))
	}
	mustStoreOneBatch(t, st, "PAUSED", 8)
	if st.RowRefusals() != 1 || gormstore.RowBatches(st) != 1 {
		t.Fatalf("the next batch, within the pause: %d refusals, %d multi-row batches; want 1 and 1 (a statement per report, not asked again)",
			st.RowRefusals(), gormstore.RowBatches(st))
	}
}

// TestMultiRowReturning: a batch's staging ids come back with its INSERT
// (MariaDB's RETURNING), in the order of its rows, whatever the
// auto-increment step and offset (here 7 and 3, set on every session by
// the DSN): each report's row, record, file reservation and event name
// its own id, and nothing is read back. Rows that come back out of order
// (checked backwards here) are a miss: the batch goes a statement per
// report, each report stored once under its own id, and so does the
// next, within the pause. A server that cannot
// parse RETURNING (the proxy answers 1064 for it, as MySQL would) sends
// that batch a statement per report, every report stored once, and the
// next batches compute their ids instead.
func TestMultiRowReturning(t *testing.T) {
	t.Parallel()
	dsn := storetest.MustCreateDatabase(t)
	cfg, err := mysqldrv.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var version string
	if err := db.QueryRow("SELECT VERSION()").Scan(&version); err != nil {
		t.Fatal(err)
	}
	if !gormstore.ReturningServer(version) {
		t.Skipf("%s has no INSERT ... RETURNING", version) // MySQL: TestMultiRowBatch holds its path
	}
	t.Run("step and offset", func(t *testing.T) {
		t.Parallel()
		stepped := *cfg
		stepped.Params = map[string]string{"auto_increment_increment": "7", "auto_increment_offset": "3"}
		for k, v := range cfg.Params {
			stepped.Params[k] = v
		}
		st := storetest.MustOpen(t, gormstore.MySQL, stepped.FormatDSN(), gormstore.Options{BatchWriters: 1})
		var step int64
		if err := gormstore.CommitPool(st).QueryRow("SELECT @@auto_increment_increment").Scan(&step); err != nil || step != 7 {
			t.Fatalf("the commit pool's step: %d (%v), want 7", step, err)
		}
		// Twice: the second batch runs the statements the first prepared
		// (the one writer takes an idle connection of the commit pool;
		// the driver keeps a statement's columns from its PREPARE, which
		// for RETURNING MariaDB reports as none: MDEV-27013).
		mustStoreOneBatch(t, st, "STEP7A", 30)
		mustStoreOneBatch(t, st, "STEP7B", 30)
		if gormstore.RowReturns(st) < 4 || gormstore.RowChecks(st) != 0 || st.RowMisses() != 0 {
			t.Fatalf("%d chunks' ids returned, %d read back, %d misses; want 4 (24 and 5, twice), 0, 0",
				gormstore.RowReturns(st), gormstore.RowChecks(st), st.RowMisses())
		}
	})
	t.Run("rows returned out of order", func(t *testing.T) {
		t.Parallel()
		st := storetest.MustOpen(t, gormstore.MySQL, dsn, gormstore.Options{BatchWriters: 1})
		gormstore.SetReturnedBackwards(st)
		mustStoreOneBatch(t, st, "BACKWARDS", 12)
		if st.RowMisses() != 1 || gormstore.RowReturns(st) != 0 || gormstore.RowBatches(st) != 0 {
			t.Fatalf("%d misses, %d chunks returned, %d multi-row batches; want 1, 0, 0 (each report stored a statement per report)",
				st.RowMisses(), gormstore.RowReturns(st), gormstore.RowBatches(st))
		}
		mustStoreOneBatch(t, st, "BACKPAUSE", 12)
		if st.RowMisses() != 1 || gormstore.RowBatches(st) != 0 {
			t.Fatalf("the batch after a miss: %d misses, %d multi-row batches; want 1, 0 (paused, not tried)", st.RowMisses(), gormstore.RowBatches(st))
		}
	})
	t.Run("a server without RETURNING", func(t *testing.T) {
		t.Parallel()
		proxy := faultproxy.StartMySQL(t, cfg.Addr)
		st := storetest.MustOpen(t, gormstore.MySQL, proxy.Route(t, dsn), gormstore.Options{BatchWriters: 1})
		// The first report's statements are prepared and it waits at its
		// COMMIT: the next staging INSERT prepared is the 9-row one, with
		// RETURNING.
		storeOneBatch(t, st, "UNPARSED", 10, func() {
			proxy.FailNext("INSERT INTO "+gormstore.StagingTable, faultproxy.Unparsed)
		})
		if proxy.Failed() != 1 || gormstore.RowReturns(st) != 0 || gormstore.RowBatches(st) != 0 {
			t.Fatalf("RETURNING refused: %d refused by the proxy, %d chunks returned, %d multi-row batches; want 1, 0, 0",
				proxy.Failed(), gormstore.RowReturns(st), gormstore.RowBatches(st))
		}
		mustStoreOneBatch(t, st, "COMPUTED", 10)
		if gormstore.RowBatches(st) != 1 || gormstore.RowReturns(st) != 0 {
			t.Fatalf("the next batch: %d multi-row batches, %d chunks returned; want 1, 0 (ids computed, RETURNING not tried again)",
				gormstore.RowBatches(st), gormstore.RowReturns(st))
		}
	})
}
