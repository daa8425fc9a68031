package config

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
)

// The decisions and events keys' samples for TestEveryKeyIsSettable, kept
// beside their tests (the webhooks.* keys have their own).
func init() {
	constrained["decisions.reason_codes"] = "monto_no_coincide,otro"
}

// TestReasonCodesDefaultIsTheContracts: decisions.reason_codes defaults
// to domain.DefaultReasonCodes, contract §11's list, in its order.
func TestReasonCodesDefaultIsTheContracts(t *testing.T) {
	if got := Defaults().Decisions.ReasonCodes; !slices.Equal(got, domain.DefaultReasonCodes) {
		t.Fatalf("default %v, want %v", got, domain.DefaultReasonCodes)
	}
	d := Defaults().Events
	if d.Retention != 30*24*time.Hour || d.ListDelay != 5*time.Second {
		t.Fatalf("events defaults: %+v, want retention 30 days and list_delay 5s", d)
	}
}

// TestDecisionsAndEventsRefusals: a bad reason-code list is refused by the
// domain's rule, in its words, under decisions.reason_codes; the events
// bounds name their keys; a list of the operator's own codes loads.
func TestDecisionsAndEventsRefusals(t *testing.T) {
	t.Chdir(t.TempDir())
	_, rule := domain.NewDecisionRules([]string{"Monto"})
	for _, tt := range []struct{ env, val, key, says string }{
		{"DISB_DECISIONS_REASON_CODES", "Monto", "decisions.reason_codes", rule.Error()},
		{"DISB_DECISIONS_REASON_CODES", "otro,otro", "decisions.reason_codes", "twice"},
		{"DISB_EVENTS_RETENTION", "12h", "events.retention", "at least 1d"},
		{"DISB_EVENTS_LIST_DELAY", "2m", "events.list_delay", "0s to 1m"},
		{"DISB_EVENTS_LIST_DELAY", "-1s", "events.list_delay", "not a duration"},
	} {
		t.Run(tt.key+"="+tt.val, func(t *testing.T) {
			t.Setenv(tt.env, tt.val)
			_, err := Load("")
			mustNameKey(t, err, tt.key)
			if !strings.Contains(err.Error(), tt.says) {
				t.Errorf("err = %v; want it to say %q", err, tt.says)
			}
		})
	}
	t.Setenv("DISB_DECISIONS_REASON_CODES", "sin_fondos,otro")
	cfg, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	rules, err := cfg.Decisions.Rules()
	if err != nil || !slices.Equal(rules.Codes(), []string{"sin_fondos", "otro"}) {
		t.Fatalf("rules %v %v", rules.Codes(), err)
	}
}
