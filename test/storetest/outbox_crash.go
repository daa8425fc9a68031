package storetest

import (
	"context"
	"errors"
	"testing"

	mysqldrv "github.com/go-sql-driver/mysql"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
	"github.com/lender/disbursementd/test/faultproxy"
)

// RunOutboxCrash cuts a store's connection to the database (a fault proxy
// between them) inside the transactions that write a state and its
// event, and checks, through check (another node of a cluster, say),
// that neither is ever kept without the other:
//   - a decision cut after its UPDATE, before its event's INSERT reaches
//     the server: the server rolls the UPDATE back with the connection;
//     the report stays received, no event, and the decision sent again is
//     recorded with its event;
//   - a decision whose COMMIT is applied but whose answer is lost: both;
//   - a report whose batch is cut before its COMMIT: neither the row nor
//     its event; one whose COMMIT is applied, answer lost: both.
//
// Each case checks that the proxy failed its one statement.
func RunOutboxCrash(t *testing.T, dsn, check string) {
	ctx := context.Background()
	cfg, err := mysqldrv.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	proxy := faultproxy.StartMySQL(t, cfg.Addr)
	st := MustOpen(t, gormstore.MySQL, proxy.Route(t, dsn), gormstore.Options{})
	h := GormOutbox(t, st, gormstore.MySQL, proxy.Route(t, dsn))
	look := GormOutbox(t, MustOpen(t, gormstore.MySQL, check, gormstore.Options{}), gormstore.MySQL, check)
	failsOnce := func(t *testing.T, prefix string, fate faultproxy.Fate) {
		before := proxy.Failed()
		proxy.FailNext(prefix, fate)
		t.Cleanup(func() {
			if n := proxy.Failed() - before; n != 1 {
				t.Errorf("the proxy failed %d statements %q, want 1: the case proved nothing", n, prefix)
			}
		})
	}
	at := outboxNow()
	status := func(t *testing.T, id int64) domain.ReportStatus {
		t.Helper()
		// Through check: on a cluster another node must hold what this
		// one committed (causal reads), and nothing it did not.
		got, err := look.Lookup.GetReport(ctx, "acme", id)
		if err != nil {
			t.Fatalf("GetReport through check: %v", err)
		}
		return got.Status
	}

	t.Run("a decision cut before its event", func(t *testing.T) {
		id := storeOutboxReport(t, h, "acme", "CR-CUT-DEC", at)
		failsOnce(t, "INSERT INTO report_events", faultproxy.Drop)
		if _, _, err := h.Decisions.Decide(ctx, id, accepted(at)); err == nil {
			t.Fatal("Decide with its connection cut succeeded")
		}
		if st := status(t, id); st != domain.StatusReceived {
			t.Fatalf("after the cut the report is %s: a state without its event", st)
		}
		if got, applied, err := h.Decisions.Decide(ctx, id, accepted(at)); err != nil || !applied || got.Status != domain.StatusAccepted {
			t.Fatalf("the decision sent again = %+v, %v, %v", got, applied, err)
		}
	})

	t.Run("a decision applied, its answer lost", func(t *testing.T) {
		id := storeOutboxReport(t, h, "acme", "CR-LOST-DEC", at)
		failsOnce(t, "COMMIT", faultproxy.LoseAnswer)
		if _, _, err := h.Decisions.Decide(ctx, id, rejected("perdida", at)); err == nil {
			t.Fatal("Decide whose answer was lost succeeded")
		}
		if st := status(t, id); st != domain.StatusRejected {
			t.Fatalf("after the lost answer the report is %s, want rejected", st)
		}
		if _, applied, err := h.Decisions.Decide(ctx, id, rejected("perdida", at)); err != nil || applied {
			t.Fatalf("the decision sent again = %v, %v; want it found already made", applied, err)
		}
	})

	t.Run("a report cut before its commit", func(t *testing.T) {
		failsOnce(t, "COMMIT", faultproxy.Drop)
		_, _, err := h.Reports.StoreReport(ctx, outboxStaged(t, "acme", "CR-CUT-REP", at), outboxRecord("acme", "cut", at))
		if err == nil || errors.Is(err, domain.ErrOutcomeUnknown) {
			t.Fatalf("StoreReport cut before its COMMIT = %v; want a plain error", err)
		}
	})

	t.Run("a report applied, its answer lost", func(t *testing.T) {
		failsOnce(t, "COMMIT", faultproxy.LoseAnswer)
		id, _, err := h.Reports.StoreReport(ctx, outboxStaged(t, "acme", "CR-LOST-REP", at), outboxRecord("acme", "lost", at))
		if err != nil || id <= 0 {
			t.Fatalf("StoreReport whose answer was lost = %d, %v; want it read back as stored", id, err)
		}
		if st := status(t, id); st != domain.StatusReceived {
			t.Fatalf("the report is %s", st)
		}
	})

	events := allEvents(t, look, "acme")
	reports, err := look.Lookup.ListReports(ctx, ports.ReportFilter{User: "acme", Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	c := checkOutbox(t, look)
	t.Logf("after the cuts: %d reports, %d events; %d states without their event, %d events without their state",
		len(reports), len(events), c.NoEvent, c.NoState)
	if len(reports) != 3 || len(events) != 5 {
		t.Fatalf("%d reports and %d events; want 3 (the cut one never stored) and 5 (3 received, 2 decisions)", len(reports), len(events))
	}
}
