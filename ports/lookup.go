package ports

import (
	"context"
	"encoding/base64"
	"errors"
	"strconv"
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
	// ListReports returns, in ascending id, at most f.Limit receipts of
	// f.User's reports that match every filter f sets, with ids above
	// f.AfterID. Each look-up uses an index on a table of 10^7 rows.
	ListReports(ctx context.Context, f ReportFilter) ([]domain.StoredReceipt, error)
}

// ReportFilter selects a partner's receipts; a zero filter matches all.
type ReportFilter struct {
	User           string
	CreditNumber   string    // numero_credito equal to this
	IdempotencyKey string    // the Idempotency-Key header equal to this
	From, To       time.Time // received at or after From, and before To
	AfterID        int64     // ids above this one
	Limit          int       // > 0
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
	From, To       time.Time // zero: unbounded
	Limit          int       // 0: domain.PageDefault
	Cursor         string    // a Page's NextCursor; "" for the first page
}

// Page is one page of receipts, in ascending id. NextCursor asks for the
// next page; it is "" on the last one.
type Page struct {
	Receipts   []domain.StoredReceipt
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
		return Page{}, domain.InvalidParameter("limit", "de 1 a "+strconv.Itoa(domain.PageMax))
	}
	if f.CreditNumber != "" && !domain.ValidCreditNumber(f.CreditNumber) {
		return Page{}, domain.InvalidParameter("numero_credito", "de 1 a 30 caracteres entre A-Z, a-z, 0-9 y guion")
	}
	if f.IdempotencyKey != "" && !domain.ValidIdempotencyKey(f.IdempotencyKey) {
		return Page{}, domain.InvalidParameter("idempotency_key", "de 1 a 255 caracteres ASCII imprimibles")
	}
	if !f.From.IsZero() && !f.To.IsZero() && f.From.After(f.To) {
		// Contract §10: a range that ends before it starts is a mistake,
		// not an empty page.
		return Page{}, &domain.Error{Kind: domain.ErrInvalidInput, Code: "invalid_request", Detail: "received_from,received_to",
			Message: "Parámetros received_from y received_to inválidos: received_from es posterior a received_to"}
	}
	if lq.Cursor != "" {
		id, ok := decodeCursor(lq.Cursor)
		if !ok {
			return Page{}, domain.InvalidParameter("cursor", "use el next_cursor de la página anterior tal como llegó")
		}
		f.AfterID = id
	}
	// One more than the page holds tells whether another page follows.
	want := f.Limit
	f.Limit++
	rows, err := q.store.ListReports(ctx, f)
	if err != nil {
		return Page{}, lookupFailed(err)
	}
	page := Page{Receipts: rows}
	if len(rows) > want {
		page.Receipts = rows[:want]
		page.NextCursor = encodeCursor(rows[want-1].ID)
	}
	return page, nil
}

// A cursor is opaque to partners: today the unpadded base64url of the
// last id of the page, in decimal. Only a cursor this encoding makes
// decodes.
func encodeCursor(id int64) string {
	return base64.RawURLEncoding.EncodeToString(strconv.AppendInt(nil, id, 10))
}

func decodeCursor(c string) (int64, bool) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || len(b) == 0 || len(b) > 19 || b[0] == '0' {
		return 0, false
	}
	id, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil || id <= 0 || encodeCursor(id) != c {
		return 0, false
	}
	return id, true
}
