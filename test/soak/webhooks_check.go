package soak

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/lender/disbursementd/domain"
)

// drainOutbox waits until every event is dispatched and no delivery is
// pending. A backlog drains at the delivery's own pace, so the bound is
// on progress: OutboxBound without the pending deliveries falling ends
// the wait, as a violation.
func (w *whSoak) drainOutbox(ctx context.Context) error {
	bound := w.wc.outboxBound()
	w.wc.Progress("webhook soak: waiting for the outbox to drain (at most %s without progress)", bound)
	last := -1
	for deadline := time.Now().Add(bound); ; {
		var pending, undispatched int
		err := w.db.QueryRowContext(ctx, "SELECT (SELECT COUNT(*) FROM webhook_deliveries WHERE state = 'pending'),"+
			" (SELECT COUNT(*) FROM report_events WHERE dispatched = 0)").Scan(&pending, &undispatched)
		if err != nil {
			return fmt.Errorf("count the outbox: %w", err)
		}
		if last < 0 {
			w.res.PendingAtStop = pending + undispatched
		}
		if pending == 0 && undispatched == 0 {
			w.res.OutboxDrained = time.Now()
			return nil
		}
		if last >= 0 && pending+undispatched < last {
			deadline = time.Now().Add(bound)
		}
		last = pending + undispatched
		if time.Now().After(deadline) {
			w.res.violation("the outbox stopped draining for %s: %d deliveries pending, %d events not dispatched", bound, pending, undispatched)
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// soakRow is a staging row's state; soakEvent an outbox row.
type soakRow struct {
	status                string
	receivedAt, decidedAt time.Time
}

type soakEvent struct {
	id, report int64
	typ        string
	createdAt  time.Time
}

// dbTime reads a DATETIME(6) the store wrote in UTC, cast to text.
func dbTime(s string) (time.Time, error) {
	return time.ParseInLocation("2006-01-02 15:04:05.999999", s, time.UTC)
}

// check compares the database with the receiver's log and with what the
// partner and the back office were answered, and has every POST the
// receiver got verified by the standardwebhooks package.
func (w *whSoak) check(ctx context.Context) error {
	r := w.res
	rows := map[int64]soakRow{}
	err := scanAll(ctx, w.db, "SELECT id, status, CAST(received_at AS CHAR), COALESCE(CAST(decided_at AS CHAR), '') FROM partner_disbursement_staging",
		func(scan func(...any) error) error {
			var id int64
			var row soakRow
			var recv, dec string
			if err := scan(&id, &row.status, &recv, &dec); err != nil {
				return err
			}
			var err error
			if row.receivedAt, err = dbTime(recv); err == nil && dec != "" {
				row.decidedAt, err = dbTime(dec)
			}
			rows[id] = row
			return err
		})
	if err != nil {
		return err
	}
	var events []soakEvent
	err = scanAll(ctx, w.db, "SELECT id, report_id, type, CAST(created_at AS CHAR) FROM report_events", func(scan func(...any) error) error {
		var e soakEvent
		var at string
		if err := scan(&e.id, &e.report, &e.typ, &at); err != nil {
			return err
		}
		var err error
		e.createdAt, err = dbTime(at)
		events = append(events, e)
		return err
	})
	if err != nil {
		return err
	}
	err = scanAll(ctx, w.db, "SELECT state, COUNT(*) FROM webhook_deliveries GROUP BY state", func(scan func(...any) error) error {
		var state string
		var n int
		err := scan(&state, &n)
		r.Deliveries[state] = n
		return err
	})
	if err != nil {
		return err
	}
	// An event the dispatcher marked done with no delivery made is lost
	// to every receiver: name each, with what the outbox holds of it.
	err = scanAll(ctx, w.db, "SELECT e.id, e.type, e.report_id, e.dispatched, CAST(e.created_at AS CHAR) FROM report_events AS e"+
		" WHERE NOT EXISTS (SELECT 1 FROM webhook_deliveries AS d WHERE d.event_id = e.id)", func(scan func(...any) error) error {
		var id, report int64
		var typ, at string
		var dispatched int
		if err := scan(&id, &typ, &report, &dispatched, &at); err != nil {
			return err
		}
		r.EventsWithoutDelivery++
		r.violation("event %d (%s of report %d, created %s, dispatched %d) has no delivery", id, typ, report, at, dispatched)
		return nil
	})
	if err != nil {
		return err
	}
	if r.Deliveries["failed"] > 0 {
		r.violation("%d deliveries failed (the retry schedule ran out)", r.Deliveries["failed"])
	}
	w.compareStates(rows, events)
	w.compareDeliveries(rows, events)
	return w.checkSignatures(ctx)
}

// compareStates counts events without their state and states without
// their event, and checks every acknowledged report stored and decided
// as the back office was answered.
func (w *whSoak) compareStates(rows map[int64]soakRow, events []soakEvent) {
	r := w.res
	r.Rows = len(rows)
	byReport := map[int64]map[string]int{}
	for _, e := range events {
		r.Events[e.typ]++
		if byReport[e.report] == nil {
			byReport[e.report] = map[string]int{}
		}
		if byReport[e.report][e.typ]++; byReport[e.report][e.typ] == 2 {
			r.ExtraEvents++
			r.violation("report %d has more than one %s event", e.report, e.typ)
		}
		row, ok := rows[e.report]
		switch {
		case !ok:
			r.EventsWithoutState++
			r.violation("event %d (%s) of report %d, which has no row", e.id, e.typ, e.report)
		case e.typ != string(domain.EventReceived) && e.typ != "report."+row.status:
			r.EventsWithoutState++
			r.violation("event %d (%s) of report %d, which is %s", e.id, e.typ, e.report, row.status)
		}
	}
	for id, row := range rows {
		switch row.status {
		case "accepted":
			r.Accepted++
		case "rejected":
			r.Rejected++
		}
		if byReport[id][string(domain.EventReceived)] == 0 {
			r.StatesWithoutEvent++
			r.violation("report %d is stored without its report.received event", id)
		}
		if row.status != "received" && byReport[id]["report."+row.status] == 0 {
			r.StatesWithoutEvent++
			r.violation("report %d is %s without its report.%s event", id, row.status, row.status)
		}
	}
	r.decMu.Lock()
	defer r.decMu.Unlock()
	for _, rep := range w.reports.all() {
		oks := rep.answers()
		if len(oks) == 0 {
			continue
		}
		id := oks[0].id
		row, stored := rows[id]
		want, decided := r.decisions[id]
		switch {
		case !stored:
			r.violation("report %d (%s) was acknowledged and has no row", id, rep.credit)
		case !decided:
			r.UndecidedAcknowledge++
			r.violation("report %d was acknowledged and never decided (the drain ended first)", id)
		case row.status != want:
			r.violation("report %d: the decision API answered %s, its row is %s", id, want, row.status)
		}
	}
}

// compareDeliveries matches every event with the POSTs the receiver got
// under its webhook-id: each must have been answered 2xx at least once,
// with a body of its type and report; it counts duplicates and the
// latency from each decision to its first 2xx.
func (w *whSoak) compareDeliveries(rows map[int64]soakRow, events []soakEvent) {
	r := w.res
	type seen struct {
		first time.Time
		oks   int
	}
	got := w.rcv.got()
	r.Posts = len(got)
	byID := map[string]*seen{}
	byEvent := map[string]soakEvent{}
	for _, e := range events {
		byEvent[domain.EventID(e.createdAt, e.id)] = e
	}
	for _, g := range got {
		if g.Answer >= 300 {
			r.Answered500++
		}
		e, ok := byEvent[g.ID]
		if !ok {
			r.violation("the receiver got webhook-id %q, no event's", g.ID)
			continue
		}
		wantStatus := "received"
		if e.typ != string(domain.EventReceived) {
			wantStatus = rows[e.report].status
		}
		if g.Type != e.typ || g.Report != e.report || g.Status != wantStatus {
			r.violation("%s (event %d, %s of report %d, now %s): the body says %s of report %d, status %s",
				g.ID, e.id, e.typ, e.report, wantStatus, g.Type, g.Report, g.Status)
		}
		if g.Answer >= 300 {
			continue
		}
		s := byID[g.ID]
		if s == nil {
			s = &seen{first: g.At}
			byID[g.ID] = s
		}
		if s.oks++; s.oks == 2 {
			r.Duplicates++
		}
		if s.oks > 1 {
			r.DuplicatePosts++
		}
	}
	var decided, stored []time.Duration
	fully := map[int64]int{}
	for id, e := range byEvent {
		s := byID[id]
		if s == nil {
			r.Undelivered++
			r.violation("event %d (%s of report %d) was never answered 2xx at the receiver", e.id, e.typ, e.report)
			continue
		}
		r.EventsDelivered++
		fully[e.report]++
		if e.typ == string(domain.EventReceived) {
			stored = append(stored, s.first.Sub(rows[e.report].receivedAt))
		} else {
			decided = append(decided, s.first.Sub(rows[e.report].decidedAt))
		}
	}
	for id, row := range rows {
		if row.status != "received" && fully[id] == 2 {
			r.DecidedFullyDone++
		}
	}
	r.LatencyN = len(decided)
	r.LatencyP50, r.LatencyP99, r.LatencyMax = quantile(decided, 0.5), quantile(decided, 0.99), quantile(decided, 1)
	r.ReceivedLatencyP50, r.ReceivedLatencyP99 = quantile(stored, 0.5), quantile(stored, 0.99)
}

// quantile is the q-quantile of ds (nearest rank), 0 for none.
func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	i := min(len(ds)-1, max(0, int(q*float64(len(ds))+0.5)-1))
	return ds[i].Round(time.Millisecond)
}
