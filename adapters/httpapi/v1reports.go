package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// v1Read is how /v1 reads a report: money and rates as strings only.
var v1Read = domain.MapOptions{DecimalsAsStrings: true}

// receiptJSON is a receipt as /v1 shows it (and an event's data):
// every member of a report present, file and idempotency_key null when
// there is none; its status, and once decided decided_at, with
// reason_code and reason when rejected (contract §11).
type receiptJSON struct {
	ID             int64   `json:"id"`
	NumeroCredito  string  `json:"numero_credito"`
	File           *string `json:"file"`
	ReceivedAt     string  `json:"received_at"`
	IdempotencyKey *string `json:"idempotency_key"`
	Status         string  `json:"status"`
	DecidedAt      string  `json:"decided_at,omitempty"`
	ReasonCode     string  `json:"reason_code,omitempty"`
	Reason         string  `json:"reason,omitempty"`
}

func receiptOf(r domain.StoredReceipt) receiptJSON {
	out := receiptJSON{ID: r.ID, NumeroCredito: r.CreditNumber, ReceivedAt: domain.ReceiptTime(r.ReceivedAt), Status: string(r.Status)}
	if r.FileName != "" {
		out.File = &r.FileName
	}
	if r.IdempotencyKey != "" {
		out.IdempotencyKey = &r.IdempotencyKey
	}
	if r.Status.Decided() {
		out.DecidedAt = domain.ReceiptTime(r.Decision.At)
	}
	if r.Status == domain.StatusRejected {
		out.ReasonCode, out.Reason = r.Decision.ReasonCode, r.Decision.Reason
	}
	return out
}

// reportLocation is the path of a stored report.
func reportLocation(id int64) string { return "/v1/reports/" + itoa(id) }

// handleV1Report is POST /v1/reports: the report pipeline with the token
// in Authorization, money as strings, and problem answers. Stored: 201,
// Location and the receipt; the same report again (sent on either path):
// 200, Idempotent-Replayed, the same Location and the first receipt as its
// row holds it now (Reports.Submit reads it).
func (s *Server) handleV1Report(w http.ResponseWriter, r *http.Request) {
	s.runReport(w, r, reportRoute{token: authorizationToken, fail: s.v1ReportError, keyed: true},
		func(ctx context.Context, w http.ResponseWriter, p ports.Principal, members []domain.RawField, body []byte) error {
			receipt, err := s.Reports.Submit(ctx, submission(r, p, members, body, v1Read))
			if err != nil {
				return err
			}
			s.noteReceipt(w, r, receipt)
			// Contract §10: a replay repeats the first answer's Location,
			// with the receipt as its row holds it now.
			w.Header().Set("Location", reportLocation(receipt.ID))
			if receipt.Replayed {
				writeJSON(w, http.StatusOK, receiptOf(receipt.StoredReceipt))
				return nil
			}
			writeJSON(w, http.StatusCreated, receiptOf(receipt.StoredReceipt))
			return nil
		})
}

// handleV1Validate is POST /v1/reports/validate: the same pipeline and
// checks as POST /v1/reports (a report slot included), then nothing is
// kept. The Idempotency-Key is not read.
func (s *Server) handleV1Validate(w http.ResponseWriter, r *http.Request) {
	s.runReport(w, r, reportRoute{token: authorizationToken, fail: s.v1Error},
		func(ctx context.Context, w http.ResponseWriter, p ports.Principal, members []domain.RawField, body []byte) error {
			sub := submission(r, p, members, body, v1Read)
			sub.IdempotencyKey = ""
			if err := s.Validator.Validate(ctx, sub); err != nil {
				return err
			}
			writeRaw(w, http.StatusOK, []byte(`{"valid":true}`+"\n"))
			return nil
		})
}

// startLookup authenticates a /v1 look-up, checks its partner's rate
// (overRate: first, as it is the cheapest check, so a look-up past the
// rate costs no slot and no store call), takes one of the look-up slots
// for its partner (contract §10: apart from the reports' slots, so one
// partner's look-ups never take another's report or look-up capacity;
// a partner with none running always gets one: keyedGate's first places)
// and returns its principal, a context bounded by the look-up timeout,
// and done, which gives the slot back; on failure it has answered.
func (s *Server) startLookup(w http.ResponseWriter, r *http.Request) (p ports.Principal, ctx context.Context, done func(), ok bool) {
	if p, ok = s.lookupCaller(w, r); !ok {
		return p, nil, nil, false
	}
	ctx, done, ok = s.lookupSlot(w, r, p)
	return p, ctx, done, ok
}

// lookupCaller is startLookup's first half: the caller authenticated and
// within its partner's rate.
func (s *Server) lookupCaller(w http.ResponseWriter, r *http.Request) (ports.Principal, bool) {
	p, ok := s.authenticate(w, r, reportRoute{token: authorizationToken, fail: s.v1Error})
	if !ok {
		return p, false
	}
	if err := s.overRate(r, partnerOf(p)); err != nil {
		s.v1Error(w, r, err)
		return p, false
	}
	return p, true
}

// lookupSlot is startLookup's second half: a place among the partner's
// look-ups, and the look-up's time from now.
func (s *Server) lookupSlot(w http.ResponseWriter, r *http.Request, p ports.Principal) (context.Context, func(), bool) {
	partner := partnerOf(p)
	if !s.lookups.enter(partner) {
		s.v1Error(w, r, s.overloaded("Servicio ocupado: demasiadas consultas en curso; reintente en un momento"))
		return nil, nil, false
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.Limits.LookupTimeout)
	return ctx, func() { cancel(); s.lookups.leave(partner) }, true
}

// handleV1Get is GET /v1/reports/{id}: the receipt and the stored fields
// of one of the partner's reports. Anything else is 404 not_found, an id
// that is not a positive integer in canonical form included.
func (s *Server) handleV1Get(w http.ResponseWriter, r *http.Request) {
	p, ctx, done, ok := s.startLookup(w, r)
	if !ok {
		return
	}
	w, finish := holdUntil(w, done) // the place is given back before the answer is written
	defer finish()
	// Only the canonical decimal form names a report (contract §10):
	// "01" and "+1" are not report 1.
	param := chi.URLParam(r, "id")
	id, err := strconv.ParseInt(param, 10, 64)
	if err != nil || id <= 0 || param != itoa(id) {
		s.v1Error(w, r, domain.NewError(domain.ErrNotFound, "not_found", domain.MsgNotFound))
		return
	}
	stored, err := s.Lookup.Get(ctx, p.User, id)
	if err != nil {
		s.v1Error(w, r, err)
		return
	}
	info(r).reportID = id
	fields, err := fieldsJSON(stored.Report)
	if err != nil {
		s.v1Error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, struct {
		receiptJSON
		Fields json.RawMessage `json:"fields"`
	}{receiptOf(stored.StoredReceipt), fields})
}

// fieldsJSON is a stored report's fields by partner name, in the
// catalogue's order, each in its stored form (contract §8): money and
// rates as strings at their scale, integers as numbers, booleans as
// true/false, dates YYYY-MM-DD, text as stored.
func fieldsJSON(rep *domain.Report) (json.RawMessage, error) {
	b := []byte{'{'}
	for f, v := range rep.Values() {
		if len(b) > 1 {
			b = append(b, ',')
		}
		key, err := json.Marshal(f.Partner)
		if err != nil {
			return nil, err
		}
		b = append(append(b, key...), ':')
		// The wire's spelling of the stored form: numbers and booleans
		// as JSON's, the rest as strings.
		switch s := domain.StoredOf(f, v); s.Kind {
		case domain.StoredInteger:
			b = strconv.AppendInt(b, s.Int, 10)
		case domain.StoredBoolean:
			b = strconv.AppendBool(b, s.Bool())
		default:
			text, err := json.Marshal(s.Text())
			if err != nil {
				return nil, err
			}
			b = append(b, text...)
		}
	}
	return append(b, '}'), nil
}
