package gormstore_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/storetest"
)

// TestMultiRowBatch: on MariaDB a batch of many reports goes in
// multi-row statements (chunks of 32, 4, 2 and 1 here), and each report
// gets its own id: its row, its record, its file's reservation and its
// event name it. A batch with a taken key in it runs a statement per
// report, so the taken key is answered as before.
func TestMultiRowBatch(t *testing.T) {
	t.Parallel()
	st := storetest.MustOpen(t, gormstore.MySQL, storetest.MustCreateDatabase(t), gormstore.Options{BatchWriters: 1})
	db := gormstore.Pool(st)
	// The first batch holds its COMMIT until the others are queued, so
	// they go together in the next batch.
	var once sync.Once
	held, release := make(chan struct{}), make(chan struct{})
	gormstore.SetBeforeCommit(st, func() { once.Do(func() { close(held); <-release }) })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const n = 40
	type answer struct {
		id  int64
		err error
	}
	answers := make([]chan answer, n)
	send := func(i int, key string) chan answer {
		r := fullReport(t, fmt.Sprintf("CR-ROWS-%d", i))
		if i%3 == 0 {
			r.FileName, r.FileSize, r.FileSHA256 = fmt.Sprintf("partner_CR-ROWS-%d_20261129.pdf", i), 10, "ab"
		}
		ch := make(chan answer, 1)
		go func() {
			id, _, err := st.StoreReport(ctx, r, recordT(key, r.ReceivedAt))
			ch <- answer{id, err}
		}()
		return ch
	}
	answers[0] = send(0, "rows-0")
	<-held // the first report's batch waits at its COMMIT
	for i := 1; i < n; i++ {
		answers[i] = send(i, fmt.Sprintf("rows-%d", i))
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
	if gormstore.RowBatches(st) < 1 || gormstore.RowsOff(st) {
		t.Fatalf("%d batches in multi-row statements (rows off: %v), want at least 1", gormstore.RowBatches(st), gormstore.RowsOff(st))
	}
	for id, i := range ids {
		var credit, file string
		var keyReport, events, reserved int64
		if err := db.QueryRowContext(ctx, "SELECT numero_credito, COALESCE(file_name, '') FROM "+gormstore.StagingTable+" WHERE id = ?", id).Scan(&credit, &file); err != nil {
			t.Fatalf("report %d, id %d: %v", i, id, err)
		}
		rec, err := st.GetKey(ctx, "bench", domain.KeyHash(fmt.Sprintf("rows-%d", i), ""))
		if err != nil {
			t.Fatal(err)
		}
		keyReport = rec.ReportID
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
		if credit != fmt.Sprintf("CR-ROWS-%d", i) || keyReport != id || events != 1 || reserved != wantReserved || (file != "") != (i%3 == 0) {
			t.Errorf("report %d, id %d: row %s file %q, record's report %d, %d events, %d reservations (want %d)",
				i, id, credit, file, keyReport, events, reserved, wantReserved)
		}
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
