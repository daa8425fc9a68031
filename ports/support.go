package ports

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lender/disbursementd/domain"
)

// ReportArchive reads stored reports for the operator's support tools,
// whoever sent them. It is not a partner's look-up (ReportLookup is, and
// stays scoped to one partner): nothing a partner reaches calls it.
type ReportArchive interface {
	// FindReport returns report id, whoever sent it, or an error of kind
	// domain.ErrNotFound.
	FindReport(ctx context.Context, id int64) (domain.RecordedReport, error)
	// FindReports returns, newest first (descending ListPosition: the
	// order of ReportLookup.ListReports read backwards), at most f.Limit
	// records that match every filter f sets, listed after report
	// f.BeforeID when it is set (none when that report is gone). f.User "" matches every partner; an IdempotencyKey
	// filter needs a User (keys are a partner's own). Each look-up uses an
	// index (TestArchivePlansSQLite and ...MySQL check the plans).
	FindReports(ctx context.Context, f ArchiveFilter) ([]domain.ReportRecord, error)
}

// ArchiveFilter selects stored reports of any partner; a zero filter but
// Limit matches all.
type ArchiveFilter struct {
	User           string    // partner_user equal to this; "" for any
	CreditNumber   string    // numero_credito equal to this
	IdempotencyKey string    // the Idempotency-Key header equal to this (with User)
	From, To       time.Time // received at or after From, and before To
	BeforeID       int64     // the reports listed after this one; 0 for the newest
	Limit          int       // > 0
}

// FilePresence tells whether a file is in the upload store (UploadStore
// does).
type FilePresence interface {
	Exists(ctx context.Context, name string) (bool, error)
}

// The bounds of a page of support's list.
const (
	SupportPageDefault = 50
	SupportPageMax     = domain.PageMax
)

// Support is the use case "support looks up what partners sent":
// read-only, any partner's reports, with every identification number
// masked and every Idempotency-Key shown as its hash prefix, as the logs
// show it (domain.HashPrefix). What it returns holds nothing else that a
// support engineer's screen must not.
type Support struct {
	store ReportArchive
}

// NewSupport returns the use case on store.
func NewSupport(store ReportArchive) (*Support, error) {
	if store == nil {
		return nil, errors.New("ports: NewSupport needs a store")
	}
	return &Support{store: store}, nil
}

// SupportRecord is a stored report as support sees it in a list.
type SupportRecord struct {
	ID           int64
	ReceivedAt   time.Time
	PartnerUser  string
	PartnerNIT   string // masked
	CreditNumber string
	FileName     string // "" without a file
	FileSize     int64
	FileSHA256   string
	KeyHash      string // the Idempotency-Key's HashPrefix; "" when none was sent
	RequestID    string
	// Status is the report's state, and Decision, once it is decided,
	// the lender's decision with who made it and when (contract §11).
	Status   domain.ReportStatus
	Decision domain.Decision
}

func supportRecord(r domain.ReportRecord) SupportRecord {
	out := SupportRecord{ID: r.ID, ReceivedAt: r.ReceivedAt, PartnerUser: r.PartnerUser,
		PartnerNIT: domain.MaskIdentification(r.PartnerNIT), CreditNumber: r.CreditNumber, FileName: r.FileName,
		FileSize: r.FileSize, FileSHA256: r.FileSHA256, RequestID: r.RequestID, Status: r.Status, Decision: r.Decision}
	if r.IdempotencyKey != "" {
		out.KeyHash = domain.HashPrefix(r.IdempotencyKey)
	}
	return out
}

// SupportQuery asks for a page of stored reports, newest first.
type SupportQuery struct {
	User           string
	CreditNumber   string
	IdempotencyKey string    // needs User
	From, To       time.Time // zero: unbounded
	Before         int64     // a page's Next (the last report shown); 0 for the newest
	Limit          int       // 0: SupportPageDefault
}

// SupportPage is a page of records, newest first. Next, when not 0, asks
// for the next (older) page as SupportQuery.Before.
type SupportPage struct {
	Records []SupportRecord
	Next    int64
}

// List returns a page of stored reports. A parameter out of its bounds is
// an error of kind domain.ErrInvalidInput naming it (user, credit, key,
// from, to, before, limit); a failing store is domain.ErrUnavailable.
func (s *Support) List(ctx context.Context, q SupportQuery) (SupportPage, error) {
	if err := q.check(); err != nil {
		return SupportPage{}, err
	}
	f := ArchiveFilter{User: q.User, CreditNumber: q.CreditNumber, IdempotencyKey: q.IdempotencyKey,
		From: q.From, To: q.To, BeforeID: q.Before, Limit: q.Limit}
	if f.Limit == 0 {
		f.Limit = SupportPageDefault
	}
	// One more than the page holds tells whether another page follows.
	want := f.Limit
	f.Limit++
	rows, err := s.store.FindReports(ctx, f)
	if err != nil {
		return SupportPage{}, storeFailed(err)
	}
	var page SupportPage
	for _, r := range rows[:min(len(rows), want)] {
		page.Records = append(page.Records, supportRecord(r))
	}
	if len(rows) > want {
		page.Next = rows[want-1].ID
	}
	return page, nil
}

func (q SupportQuery) check() error {
	bad := func(name, why string) error {
		return domain.NewError(domain.ErrInvalidInput, "invalid_request", "invalid "+name+": "+why)
	}
	switch {
	case q.User != "" && domain.ValidateUserName(q.User) != nil:
		return bad("user", domain.UserNameBound.En)
	case q.CreditNumber != "" && !domain.ValidCreditNumber(q.CreditNumber):
		return bad("credit", domain.CreditNumberBound.En)
	case q.IdempotencyKey != "" && !domain.ValidIdempotencyKey(q.IdempotencyKey):
		return bad("key", domain.IdempotencyKeyBound.En)
	case q.IdempotencyKey != "" && q.User == "":
		return bad("key", "give the partner too (--user): a key is a partner's own")
	case !q.From.IsZero() && !q.To.IsZero() && !q.From.Before(q.To):
		return bad("to", "must be after from")
	case q.Before < 0:
		return bad("before", "a report id")
	case q.Limit < 0 || q.Limit > SupportPageMax:
		return bad("limit", domain.PageLimitBound.En)
	}
	return nil
}

// FileState says whether a stored report's file is in the upload store.
type FileState string

// The states of a report's file.
const (
	FileNone    FileState = "none"    // the report came without a file
	FilePresent FileState = "present" // the upload store has it
	FileMissing FileState = "missing" // the row names it and the upload store has it not
	FileUnknown FileState = "unknown" // the upload store did not answer
)

// SupportReport is a stored report as support sees it: its record, its
// file's state and its fields (identification numbers masked).
type SupportReport struct {
	SupportRecord
	File   FileState
	Fields []domain.ShownField
}

// Show returns report id, whoever sent it, and whether files has its
// file. Errors: domain.ErrNotFound (not_found), domain.ErrUnavailable
// (store_failed) when the store fails; when only files fails, the report
// comes with FileUnknown and an error of kind domain.ErrUnavailable.
func (s *Support) Show(ctx context.Context, id int64, files FilePresence) (SupportReport, error) {
	if files == nil {
		return SupportReport{}, errors.New("ports: Support.Show needs the upload store")
	}
	if id <= 0 {
		return SupportReport{}, domain.NewError(domain.ErrInvalidInput, "invalid_request", "invalid id: a report id is a positive integer")
	}
	r, err := s.store.FindReport(ctx, id)
	switch {
	case errors.Is(err, domain.ErrNotFound):
		return SupportReport{}, domain.NewError(domain.ErrNotFound, "not_found", fmt.Sprintf("no report %d", id)).WithCause(err)
	case err != nil:
		return SupportReport{}, storeFailed(err)
	}
	out := SupportReport{SupportRecord: supportRecord(r.ReportRecord), File: FileNone, Fields: domain.ShownFields(r.Report)}
	if r.FileName == "" {
		return out, nil
	}
	ok, err := files.Exists(ctx, r.FileName)
	switch {
	case err != nil:
		out.File = FileUnknown
		return out, domain.NewError(domain.ErrUnavailable, "upload_store_failed", "the upload store did not say whether it has the file").WithCause(err)
	case ok:
		out.File = FilePresent
	default:
		out.File = FileMissing
	}
	return out, nil
}
