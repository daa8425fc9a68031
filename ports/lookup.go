package ports

import (
	"context"
	"errors"
	"time"

	"github.com/lender/disbursementd/domain"
)

// ReportLookup reads stored reports back for the partner that sent them.
// Partner means the token's subject (StagedReport.PartnerUser), compared
// byte for byte.
type ReportLookup interface {
	// GetReport returns user's report id with its fields, or an error of
	// kind domain.ErrNotFound when user has no report of that id (another
	// user's included).
	GetReport(ctx context.Context, user string, id int64) (domain.StoredReport, error)
	// ListReports returns, in list order (ascending ListPosition), at most
	// f.Limit receipts of f.User's reports that match every filter f sets
	// and come after f.After. A page reads at most f.Limit entries of one
	// index, whatever the filters and however many rows the partner has
	// (contract §10), except a Status filter alone, which is checked on
	// the partner's receipts in order (one index less for every report to
	// pay): its page reads on until it has f.Limit in that state, within
	// the look-up limit.
	ListReports(ctx context.Context, f ReportFilter) ([]ListedReceipt, error)
	// ReportFields returns the fields of those of ids (at most
	// domain.PageFieldsMax) that are user's reports, by id, read by
	// primary key in one statement; an id of another user's report, or
	// of none, is left out.
	ReportFields(ctx context.Context, user string, ids []int64) (map[int64]*domain.Report, error)
}

// ListPosition is a receipt's place in list order: its receipt time as
// the store keeps it (exact, not cut to the millisecond as a receipt
// shows it), then its id. Two receipts never share a position.
type ListPosition struct {
	ReceivedAt time.Time
	ID         int64 // 0: before every receipt
}

// Before reports whether p comes before q in list order.
func (p ListPosition) Before(q ListPosition) bool {
	if !p.ReceivedAt.Equal(q.ReceivedAt) {
		return p.ReceivedAt.Before(q.ReceivedAt)
	}
	return p.ID < q.ID
}

// ListedReceipt is a receipt and its place in list order.
type ListedReceipt struct {
	domain.StoredReceipt
	Position ListPosition
}

// ReportFilter selects a partner's receipts; a zero filter matches all.
type ReportFilter struct {
	User           string
	CreditNumber   string              // numero_credito equal to this
	IdempotencyKey string              // the Idempotency-Key header equal to this
	Status         domain.ReportStatus // "" any; else only reports in this state
	From, To       time.Time           // received at or after From, and before To
	After          ListPosition        // only receipts after this one; zero: from the first
	Limit          int                 // > 0
}

// ReportQueries is the use case "a partner looks up what it sent": one
// report with its fields, or a page of receipts; never another partner's.
type ReportQueries struct {
	store ReportLookup
}

// NewReportQueries returns the use case on store.
func NewReportQueries(store ReportLookup) (*ReportQueries, error) {
	if store == nil {
		return nil, errors.New("ports: NewReportQueries needs a store")
	}
	return &ReportQueries{store: store}, nil
}

// Get returns user's report id. Errors: domain.ErrNotFound (code
// not_found, whether the report is another partner's or not there),
// domain.ErrUnavailable (store_failed).
func (q *ReportQueries) Get(ctx context.Context, user string, id int64) (domain.StoredReport, error) {
	r, err := q.store.GetReport(ctx, user, id)
	switch {
	case errors.Is(err, domain.ErrNotFound):
		return domain.StoredReport{}, domain.NewError(domain.ErrNotFound, "not_found", domain.MsgNotFound).WithCause(err)
	case err != nil:
		return domain.StoredReport{}, lookupFailed(err)
	}
	return r, nil
}

// lookupFailed is the answer to a store that failed a look-up: code
// store_failed, with a message about reading, not storing.
func lookupFailed(err error) error {
	return domain.NewError(domain.ErrUnavailable, "store_failed", domain.MsgLookupFailed).WithCause(err)
}

// ListQuery asks for one page of a partner's receipts.
type ListQuery struct {
	User           string
	CreditNumber   string    // "" matches any
	IdempotencyKey string    // "" matches any
	Status         string    // "" matches any; else received, accepted or rejected
	From, To       time.Time // zero: unbounded
	Limit          int       // 0: domain.PageDefault
	Cursor         string    // a Page's NextCursor; "" for the first page
	Fields         bool      // each receipt with its report's fields (Page.Reports)
}

// Page is one page of receipts, in list order: by receipt time, then id
// (ListPosition). NextCursor asks for the next page; it is "" on the last
// one. A partner that follows the cursors while reports arrive sees each
// report once: the next page starts after the last position shown.
type Page struct {
	Receipts   []domain.StoredReceipt
	Reports    []*domain.Report // when asked (ListQuery.Fields): Receipts[i]'s fields
	NextCursor string
}

// List returns a page of the partner's receipts. A parameter out of its
// bounds is an error of kind domain.ErrInvalidInput naming it
// (domain.InvalidParameter); a failing store is domain.ErrUnavailable.
func (q *ReportQueries) List(ctx context.Context, lq ListQuery) (Page, error) {
	f := ReportFilter{User: lq.User, CreditNumber: lq.CreditNumber, IdempotencyKey: lq.IdempotencyKey, From: lq.From, To: lq.To, Limit: lq.Limit}
	switch {
	case f.Limit == 0:
		f.Limit = domain.PageDefault
	case f.Limit < 1 || f.Limit > domain.PageMax:
		return Page{}, domain.InvalidParameter("limit", domain.PageLimitBound.Es)
	case lq.Fields && f.Limit > domain.PageFieldsMax:
		return Page{}, domain.InvalidParameter("limit", domain.PageFieldsLimitBound.Es)
	}
	if f.CreditNumber != "" && !domain.ValidCreditNumber(f.CreditNumber) {
		return Page{}, domain.InvalidParameter("numero_credito", domain.CreditNumberBound.Es)
	}
	if f.IdempotencyKey != "" && !domain.ValidIdempotencyKey(f.IdempotencyKey) {
		return Page{}, domain.InvalidParameter("idempotency_key", domain.IdempotencyKeyBound.Es)
	}
	if lq.Status != "" {
		st, ok := domain.ParseStatus(lq.Status)
		if !ok {
			return Page{}, domain.InvalidParameter("status", "received, accepted o rejected")
		}
		f.Status = st
	}
	if !f.From.IsZero() && !f.To.IsZero() && f.From.After(f.To) {
		// Contract §10: a range that ends before it starts is a mistake,
		// not an empty page.
		return Page{}, &domain.Error{Kind: domain.ErrInvalidInput, Code: "invalid_request", Detail: "received_from,received_to",
			Message: "Parámetros received_from y received_to inválidos: received_from es posterior a received_to"}
	}
	if lq.Cursor != "" {
		pos, err := decodeCursor(lq.Cursor)
		if err != nil {
			return Page{}, err
		}
		f.After = pos
	}
	// A status on the partner's whole list is checked here, on the page
	// the store read: no index holds the status (each is paid by every
	// report), and a store asked for a page in one state would read on
	// until it found one, however few reports are in it. So a page reads
	// at most limit + 1 entries whatever the filter (contract §10), and
	// holds the receipts among them in the state: fewer than limit, none
	// even, with a next cursor to follow. With a credit number or a key,
	// the store checks it on the few reports of their range.
	var status domain.ReportStatus
	if f.CreditNumber == "" && f.IdempotencyKey == "" {
		status, f.Status = f.Status, ""
	}
	// One more than the page holds tells whether another page follows.
	want := f.Limit
	f.Limit++
	rows, err := q.store.ListReports(ctx, f)
	if err != nil {
		return Page{}, lookupFailed(err)
	}
	var page Page
	if len(rows) > want {
		rows = rows[:want]
		page.NextCursor = encodeCursor(rows[want-1].Position)
	}
	page.Receipts = make([]domain.StoredReceipt, 0, len(rows))
	for _, r := range rows {
		if status == "" || r.Status == status {
			page.Receipts = append(page.Receipts, r.StoredReceipt)
		}
	}
	if lq.Fields {
		if err := q.withFields(ctx, lq.User, &page); err != nil {
			return Page{}, err
		}
	}
	return page, nil
}

// withFields reads the fields of page's reports in one store call and
// sets page.Reports. A report gone between the two reads (purged) leaves
// the page: a page shows only what it can show whole.
func (q *ReportQueries) withFields(ctx context.Context, user string, page *Page) error {
	ids := make([]int64, len(page.Receipts))
	for i, r := range page.Receipts {
		ids[i] = r.ID
	}
	if len(ids) == 0 {
		return nil
	}
	reps, err := q.store.ReportFields(ctx, user, ids)
	if err != nil {
		return lookupFailed(err)
	}
	kept := page.Receipts[:0]
	for _, r := range page.Receipts {
		if rep, ok := reps[r.ID]; ok {
			kept = append(kept, r)
			page.Reports = append(page.Reports, rep)
		}
	}
	page.Receipts = kept
	return nil
}
