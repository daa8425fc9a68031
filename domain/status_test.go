package domain

import (
	"strings"
	"testing"
	"time"
)

func mustRules(t *testing.T) DecisionRules {
	t.Helper()
	r, err := NewDecisionRules(DefaultReasonCodes)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestDecisionCheck: each wrong member of a decision is its own problem,
// named; a good one comes back normalised, dated to the millisecond.
func TestDecisionCheck(t *testing.T) {
	r := mustRules(t)
	at := time.Date(2026, 11, 28, 10, 0, 0, 123456789, time.FixedZone("x", -5*3600))
	for _, c := range []struct {
		name   string
		req    DecisionRequest
		fields []string // the problems' fields, in order; nil: valid
	}{
		{"accepted", DecisionRequest{Decision: "accepted"}, nil},
		{"rejected", DecisionRequest{Decision: "rejected", ReasonCode: "duplicado", Reason: "Ya llegó como el 41"}, nil},
		{"unknown decision", DecisionRequest{Decision: "approved"}, []string{"decision"}},
		{"received is no decision", DecisionRequest{Decision: "received"}, []string{"decision"}},
		{"accepted with a reason", DecisionRequest{Decision: "accepted", ReasonCode: "otro", Reason: "x"}, []string{"reason_code", "reason"}},
		{"rejected without code", DecisionRequest{Decision: "rejected", Reason: "x"}, []string{"reason_code"}},
		{"unknown code", DecisionRequest{Decision: "rejected", ReasonCode: "Otro", Reason: "x"}, []string{"reason_code"}},
		{"empty reason", DecisionRequest{Decision: "rejected", ReasonCode: "otro", Reason: "  \n "}, []string{"reason"}},
		{"reason of 501", DecisionRequest{Decision: "rejected", ReasonCode: "otro", Reason: strings.Repeat("é", 501)}, []string{"reason"}},
		{"control character", DecisionRequest{Decision: "rejected", ReasonCode: "otro", Reason: "a\x00b"}, []string{"reason"}},
		{"only a zero-width space", DecisionRequest{Decision: "rejected", ReasonCode: "otro", Reason: "\u200b"}, []string{"reason"}},
		{"a direction override", DecisionRequest{Decision: "rejected", ReasonCode: "otro", Reason: "ver \u202egnp.exe\u2066"}, []string{"reason"}},
		{"a byte order mark", DecisionRequest{Decision: "rejected", ReasonCode: "otro", Reason: "\ufeffMonto errado"}, []string{"reason"}},
		{"a soft hyphen", DecisionRequest{Decision: "rejected", ReasonCode: "otro", Reason: "desembol\u00adso"}, []string{"reason"}},
		{"a Hangul filler", DecisionRequest{Decision: "rejected", ReasonCode: "otro", Reason: "\u3164"}, []string{"reason"}},
		{"a braille blank", DecisionRequest{Decision: "rejected", ReasonCode: "otro", Reason: "\u2800"}, []string{"reason"}},
		{"a grapheme joiner", DecisionRequest{Decision: "rejected", ReasonCode: "otro", Reason: "a\u034fb"}, []string{"reason"}},
		{"a no-break space", DecisionRequest{Decision: "rejected", ReasonCode: "otro", Reason: "Monto\u00a0errado"}, nil},
		{"accents, ñ and a line break", DecisionRequest{Decision: "rejected", ReasonCode: "otro", Reason: "Número de crédito\nrepetido: año 2026"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, err := r.Check(c.req, DecidedByCLI("ana"), at)
			if c.fields == nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if d.At != time.Date(2026, 11, 28, 15, 0, 0, 123000000, time.UTC) || d.By != "cli:ana" {
					t.Errorf("decided at %s by %q", d.At, d.By)
				}
				return
			}
			e, ok := err.(*Error)
			if !ok || e.Kind != ErrInvalidInput || e.Code != "invalid_decision" {
				t.Fatalf("err %v, want invalid_decision", err)
			}
			var got []string
			for _, p := range e.Problems {
				got = append(got, p.Field)
			}
			if strings.Join(got, ",") != strings.Join(c.fields, ",") {
				t.Errorf("problems name %v, want %v (%v)", got, c.fields, err)
			}
		})
	}
}

// TestDecisionReasonNFC: a reason is counted and kept in NFC: 500
// decomposed "é" (1,000 code points) are 500 characters.
func TestDecisionReasonNFC(t *testing.T) {
	r := mustRules(t)
	d, err := r.Check(DecisionRequest{Decision: "rejected", ReasonCode: "otro", Reason: strings.Repeat("e\u0301", 500)}, "cli:x", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if d.Reason != strings.Repeat("é", 500) {
		t.Errorf("reason not in NFC")
	}
}

func TestDecisionSame(t *testing.T) {
	a := Decision{Status: StatusRejected, ReasonCode: "otro", Reason: "x", By: "cli:a", At: time.Unix(1, 0)}
	b := a
	b.By, b.At = "backoffice:b", time.Unix(2, 0)
	if !a.Same(b) {
		t.Error("the same decision by someone else, later, is not the same")
	}
	b.Reason = "y"
	if a.Same(b) {
		t.Error("another reason is the same decision")
	}
}

func TestNewDecisionRules(t *testing.T) {
	for _, codes := range [][]string{nil, {"Otro"}, {"otro", "otro"}, {"1x"}, {strings.Repeat("a", 65)}} {
		if _, err := NewDecisionRules(codes); err == nil {
			t.Errorf("codes %q accepted", codes)
		}
	}
	r := mustRules(t)
	if got := r.Codes(); len(got) != 7 || got[0] != "monto_no_coincide" {
		t.Errorf("codes %v", got)
	}
}

func TestDecisionConflict(t *testing.T) {
	err := DecisionConflict(7, StatusAccepted)
	if !IsKind(err, ErrConflict) || err.Code != "decision_conflict" || !strings.Contains(err.Message, "accepted") {
		t.Errorf("%#v", err)
	}
}
