package fakes

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// Outbox is an in-memory store of reports (a ReportStore inside) with
// what contract §11 adds to them: decisions, events written with the
// state they report (the outbox), webhook endpoints, deliveries under
// leases, the attempts log and back-office clients, and the retention
// purge of reports and events. It keeps the rules the SQL store keeps
// (the store suite in test/storetest holds both to them), so the use
// cases' tests can run on it.
type Outbox struct {
	*ReportStore
	mu         sync.Mutex // held over every change, and around the ReportStore's
	decisions  map[int64]domain.Decision
	purged     map[int64]bool
	events     []*outboxEvent
	endpoints  []*domain.Endpoint
	counts     map[string]int
	deliveries []*outboxDelivery
	attempts   []outboxAttempt
	backoffice []outboxClient
	refuse     error // RefuseEvents
	seq        int64
}

// outboxEvent is one event row; its receipt is read from its report.
type outboxEvent struct {
	seq        int64
	report     int64
	user       string
	typ        domain.EventType
	createdAt  time.Time
	dispatched bool
}

var (
	_ ports.ReportStore     = (*Outbox)(nil)
	_ ports.ReportLookup    = (*Outbox)(nil)
	_ ports.ReportArchive   = (*Outbox)(nil)
	_ ports.PurgeStore      = (*Outbox)(nil)
	_ ports.DecisionStore   = (*Outbox)(nil)
	_ ports.EventStore      = (*Outbox)(nil)
	_ ports.EndpointStore   = (*Outbox)(nil)
	_ ports.DeliveryStore   = (*Outbox)(nil)
	_ ports.BackofficeStore = (*Outbox)(nil)
)

// NewOutbox returns an empty store.
func NewOutbox() *Outbox {
	return &Outbox{ReportStore: NewReportStore(), decisions: map[int64]domain.Decision{}, purged: map[int64]bool{},
		counts: map[string]int{}}
}

// RefuseEvents makes every event's write fail with err (nil: succeed
// again), and with it the state it reports, as a failing statement
// inside the state's transaction would: nothing of the report or the
// decision is kept.
func (o *Outbox) RefuseEvents(err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.refuse = err
}

// Events returns how many events the store holds.
func (o *Outbox) Events() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.events)
}

// nextSeq returns a new row id; o.mu is held.
func (o *Outbox) nextSeq() int64 { o.seq++; return o.seq }

// addEvent writes an event of report id; o.mu is held.
func (o *Outbox) addEvent(id int64, user string, t domain.EventType, at time.Time) {
	o.events = append(o.events, &outboxEvent{seq: o.nextSeq(), report: id, user: user, typ: t, createdAt: at.UTC()})
}

// StoreReport stores the report with its report.received event, or
// neither (a refused event, a taken key).
func (o *Outbox) StoreReport(ctx context.Context, r domain.StagedReport, rec domain.IdempotencyRecord) (int64, domain.IdempotencyRecord, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.refuse != nil {
		return 0, domain.IdempotencyRecord{}, fmt.Errorf("store report: insert the report's event: %w", o.refuse)
	}
	before := o.ReportStore.Count()
	id, existing, err := o.ReportStore.StoreReport(ctx, r, rec)
	if n := o.ReportStore.Count(); n > before {
		o.addEvent(int64(n), r.PartnerUser, domain.EventReceived, r.EventTime())
		// Nobody to deliver to: written dispatched, as the SQL stores do
		// (gormstore's listeners.go).
		o.events[len(o.events)-1].dispatched = !slices.ContainsFunc(o.endpoints, func(e *domain.Endpoint) bool {
			return e.PartnerUser == r.PartnerUser
		})
	}
	return id, existing, err
}

// Decide records d on report id when it is received, with its event.
func (o *Outbox) Decide(ctx context.Context, id int64, d domain.Decision) (domain.StoredReceipt, bool, error) {
	if err := ctx.Err(); err != nil {
		return domain.StoredReceipt{}, false, err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	r, err := o.row(id)
	if err != nil {
		return domain.StoredReceipt{}, false, fmt.Errorf("decide report %d: %w", id, err)
	}
	if _, decided := o.decisions[id]; decided {
		return o.receipt(id, r), false, nil
	}
	if o.refuse != nil {
		return domain.StoredReceipt{}, false, fmt.Errorf("decide report %d: record its event: %w", id, o.refuse)
	}
	o.decisions[id] = d
	o.addEvent(id, r.PartnerUser, domain.EventOf(d.Status), d.At)
	return o.receipt(id, r), true, nil
}

// row returns report id unless it is missing or purged; o.mu is held.
func (o *Outbox) row(id int64) (domain.StagedReport, error) {
	if o.purged[id] {
		return domain.StagedReport{}, fmt.Errorf("report %d: %w", id, domain.ErrNotFound)
	}
	return o.ReportStore.Row(id)
}

// receipt is report id's receipt now; o.mu is held.
func (o *Outbox) receipt(id int64, r domain.StagedReport) domain.StoredReceipt {
	rc := domain.StoredReceipt{ID: id, CreditNumber: r.Report.Text("numero_credito"), FileName: r.FileName,
		ReceivedAt: r.ReceivedAt.UTC().Truncate(time.Millisecond), IdempotencyKey: r.IdempotencyKey, Status: domain.StatusReceived}
	if d, ok := o.decisions[id]; ok {
		rc.Status, rc.Decision = d.Status, d
	}
	return rc
}

// GetReport returns user's report id with its state and decision.
func (o *Outbox) GetReport(ctx context.Context, user string, id int64) (domain.StoredReport, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	r, err := o.row(id)
	if err != nil || r.PartnerUser != user {
		return domain.StoredReport{}, fmt.Errorf("report %d of this partner: %w", id, domain.ErrNotFound)
	}
	got, err := o.ReportStore.GetReport(ctx, user, id)
	got.StoredReceipt = o.receipt(id, r)
	return got, err
}

// StoredReceipt returns report id's receipt with its state and decision
// (domain.ErrNotFound once purged), for a replay.
func (o *Outbox) StoredReceipt(ctx context.Context, id int64) (domain.StoredReceipt, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if r, err := o.row(id); err == nil {
		return o.receipt(id, r), nil
	}
	if o.purged[id] {
		return domain.StoredReceipt{}, fmt.Errorf("report %d: %w", id, domain.ErrNotFound)
	}
	return o.ReportStore.StoredReceipt(ctx, id)
}

// ListReports returns f.User's receipts that match f (f.Status included).
func (o *Outbox) ListReports(ctx context.Context, f ports.ReportFilter) ([]ports.ListedReceipt, error) {
	if f.Limit <= 0 {
		return nil, fmt.Errorf("list reports: limit %d, want > 0", f.Limit)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	all := f
	all.Status, all.Limit = "", math.MaxInt32
	list, err := o.ReportStore.ListReports(ctx, all)
	var out []ports.ListedReceipt
	for _, l := range list {
		r, rerr := o.row(l.ID)
		if rerr != nil {
			continue
		}
		l.StoredReceipt = o.receipt(l.ID, r)
		if (f.Status == "" || l.Status == f.Status) && len(out) < f.Limit {
			out = append(out, l)
		}
	}
	return out, err
}

// FindReport returns report id, whoever sent it, with its decision.
func (o *Outbox) FindReport(ctx context.Context, id int64) (domain.RecordedReport, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	r, err := o.row(id)
	if err != nil {
		return domain.RecordedReport{}, err
	}
	got, err := o.ReportStore.FindReport(ctx, id)
	got.StoredReceipt = o.receipt(id, r)
	return got, err
}

// FindReports returns the records that match f, newest first.
func (o *Outbox) FindReports(ctx context.Context, f ports.ArchiveFilter) ([]domain.ReportRecord, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	limit := f.Limit
	f.Limit = math.MaxInt32
	list, err := o.ReportStore.FindReports(ctx, f)
	var out []domain.ReportRecord
	for _, rec := range list {
		if r, rerr := o.row(rec.ID); rerr == nil && len(out) < limit {
			rec.StoredReceipt = o.receipt(rec.ID, r)
			out = append(out, rec)
		}
	}
	return out, err
}

// ReportsAfter returns up to limit reports with ids above afterID.
func (o *Outbox) ReportsAfter(_ context.Context, afterID int64, limit int) ([]domain.FileRow, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []domain.FileRow
	for id := afterID + 1; id <= int64(o.ReportStore.Count()) && len(out) < limit; id++ {
		if r, err := o.row(id); err == nil {
			out = append(out, domain.FileRow{ID: id, FileName: r.FileName, ReceivedAt: r.ReceivedAt})
		}
	}
	return out, nil
}

// DeleteReports purges the reports of rows; their events stay, unlisted,
// until the events' own purge, as in the SQL store.
func (o *Outbox) DeleteReports(_ context.Context, rows []domain.FileRow) (int64, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	var n int64
	for _, r := range rows {
		if _, err := o.row(r.ID); err == nil {
			o.purged[r.ID] = true
			n++
		}
	}
	return n, nil
}
