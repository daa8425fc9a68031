package domain

import (
	"testing"
	"time"
)

// TestSandboxRequest: the documented magic credit numbers, in any case,
// and nothing else.
func TestSandboxRequest(t *testing.T) {
	codes := []string{"monto_no_coincide", "credito_no_encontrado", "documento_ilegible"}
	for _, c := range []struct {
		credit   string
		ok       bool
		decision string
		code     string
	}{
		{"SBX-ACEPTA-0001", true, "accepted", ""},
		{"sbx-acepta1", true, "accepted", ""},
		{"SBX-RECHAZA-0001", true, "rejected", "monto_no_coincide"},
		{"SBX-RECHAZA-3-77", true, "rejected", "documento_ilegible"},
		{"SBX-RECHAZA-2-", true, "rejected", "credito_no_encontrado"},
		{"SBX-RECHAZA-4-1", true, "rejected", "monto_no_coincide"}, // past the codes configured: the first
		{"SBX-RECHAZA-23-1", true, "rejected", "monto_no_coincide"},
		{"SBX-ACEPT", false, "", ""},
		{"CR-SBX-ACEPTA", false, "", ""},
		{"SBX-OTRO", false, "", ""},
		{"", false, "", ""},
	} {
		req, ok := SandboxRequest(c.credit, codes)
		if ok != c.ok || req.Decision != c.decision || req.ReasonCode != c.code {
			t.Errorf("SandboxRequest(%q) = %+v, %v; want %s %s, %v", c.credit, req, ok, c.decision, c.code, c.ok)
		}
		if ok {
			rules, err := NewDecisionRules(codes)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := rules.Check(req, DecidedBySandbox, time.Now()); err != nil {
				t.Errorf("SandboxRequest(%q) = %+v, which the rules refuse: %v", c.credit, req, err)
			}
		}
	}
}
