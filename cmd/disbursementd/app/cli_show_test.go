package app

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// TestShowSaysTheDecision: reports show tells a report's status and, once
// decided, who decided it, when, and for a rejection its code and reason.
func TestShowSaysTheDecision(t *testing.T) {
	at := time.Date(2026, 11, 26, 11, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		rec  ports.SupportRecord
		want []string
	}{
		{ports.SupportRecord{ID: 1, Status: domain.StatusReceived}, []string{"status           received", "decision         none yet"}},
		{ports.SupportRecord{ID: 2, Status: domain.StatusRejected, Decision: domain.Decision{Status: domain.StatusRejected,
			ReasonCode: "otro", Reason: "Falta la firma", By: "backoffice:cartera", At: at}},
			[]string{"status           rejected", `decision         rejected by backoffice:cartera at 2026-11-26T11:00:00.000Z: otro: "Falta la firma"`}},
	} {
		var b bytes.Buffer
		printReport(&b, ports.SupportReport{SupportRecord: tt.rec})
		for _, w := range tt.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("show of %d lacks %q:\n%s", tt.rec.ID, w, b.String())
			}
		}
	}
}

// TestWebhooksListHidesTheQuery: an endpoint's URL is listed without its
// query, which may carry a partner's token.
func TestWebhooksListHidesTheQuery(t *testing.T) {
	if got := shownURL("https://partner.example/hook?token=s3cret"); got != "https://partner.example/hook?…" {
		t.Errorf("shownURL = %q", got)
	}
	if got := shownURL("https://partner.example/hook"); got != "https://partner.example/hook" {
		t.Errorf("shownURL = %q", got)
	}
}
