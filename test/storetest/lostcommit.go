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

// RunLostCommitMySQL checks what StoreReport answers when the database
// connection is cut during the batch's COMMIT, on the test MariaDB through
// a proxy: the commit applied but its answer lost is a success; a commit
// never applied is a plain error (nothing stored); a commit whose fate
// cannot be read back is domain.ErrOutcomeUnknown. Each case checks that
// the proxy failed exactly its one COMMIT, so none passes without its
// fault.
func RunLostCommitMySQL(t *testing.T) {
	dsn := MustCreateDatabase(t)
	RunLostCommitOn(t, dsn, dsn)
}

// RunLostCommitOn is RunLostCommitMySQL on the database of dsn (a store
// reaches it through the proxy), its rows counted through check (another
// node of a cluster, say).
func RunLostCommitOn(t *testing.T, dsn, check string) {
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	cfg, err := mysqldrv.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	proxy := faultproxy.StartMySQL(t, cfg.Addr)
	cfg.Addr = proxy.Addr()
	st := MustOpen(t, gormstore.MySQL, cfg.FormatDSN(), gormstore.Options{})
	db := mustDB(t, gormstore.MySQL, check) // straight to the server
	count := func(credit string) int64 {
		var n int64
		if err := db.Table(gormstore.StagingTable).Where("numero_credito = ?", credit).Count(&n).Error; err != nil {
			t.Fatal(err)
		}
		return n
	}

	// failsOnce arms fate for the next COMMIT and, when the case ends,
	// checks that the proxy failed exactly that one.
	failsOnce := func(t *testing.T, fate faultproxy.Fate) {
		before := proxy.Failed()
		proxy.FailNext("COMMIT", fate)
		t.Cleanup(func() {
			if n := proxy.Failed() - before; n != 1 {
				t.Errorf("the proxy failed %d COMMITs, want 1: the case proved nothing", n)
			}
		})
	}

	t.Run("applied, answer lost: stored", func(t *testing.T) {
		failsOnce(t, faultproxy.LoseAnswer)
		rec := record("acme", "lost-answer", now)
		id, _, err := st.StoreReport(ctx, staged(t, "acme", "CR-LOST-ANSWER", now), rec)
		if err != nil || id <= 0 {
			t.Fatalf("StoreReport = %d, %v; want the stored id", id, err)
		}
		if got, err := st.GetKey(ctx, "acme", rec.KeyHash); err != nil || got.ReportID != id || got.Nonce != rec.Nonce {
			t.Fatalf("record = %+v, %v", got, err)
		}
		if n := count("CR-LOST-ANSWER"); n != 1 {
			t.Fatalf("%d rows, want 1", n)
		}
	})

	t.Run("never applied: a plain error, nothing stored", func(t *testing.T) {
		failsOnce(t, faultproxy.Drop)
		_, _, err := st.StoreReport(ctx, staged(t, "acme", "CR-LOST-DROP", now), record("acme", "lost-drop", now))
		t.Logf("answer: %v", err)
		if err == nil || errors.Is(err, domain.ErrOutcomeUnknown) || errors.Is(err, domain.ErrConflict) {
			t.Fatalf("StoreReport = %v; want a plain error", err)
		}
		if n := count("CR-LOST-DROP"); n != 0 {
			t.Fatalf("%d rows, want 0", n)
		}
	})

	t.Run("cannot be read back: outcome unknown", func(t *testing.T) {
		failsOnce(t, faultproxy.DropAndRefuse)
		defer proxy.Restore()
		_, _, err := st.StoreReport(ctx, staged(t, "acme", "CR-LOST-UNKNOWN", now), record("acme", "lost-unknown", now))
		t.Logf("answer: %v", err)
		if !errors.Is(err, domain.ErrOutcomeUnknown) {
			t.Fatalf("StoreReport = %v; want ErrOutcomeUnknown", err)
		}
		proxy.Restore()
		if n := count("CR-LOST-UNKNOWN"); n != 0 {
			t.Fatalf("%d rows of a commit the server never saw", n)
		}
		// The store recovers once the database is back.
		if _, _, err := st.StoreReport(ctx, staged(t, "acme", "CR-AFTER", now), record("acme", "after", now)); err != nil {
			t.Fatalf("after the database came back: %v", err)
		}
	})
}
