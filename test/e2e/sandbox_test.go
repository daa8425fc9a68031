package e2e

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/testkit"
)

// TestSandboxDecidesItsMagicCreditNumbers (issue 36): an instance with
// sandbox.enabled accepts a report whose credit number starts with
// SBX-ACEPTA and rejects one with SBX-RECHAZA-3-… with the third
// configured reason code, by itself, once sandbox.decide_after has
// passed, with their events; any other credit number waits for the back
// office. An instance without the setting decides nothing by itself.
func TestSandboxDecidesItsMagicCreditNumbers(t *testing.T) {
	t.Setenv("DISB_SANDBOX_ENABLED", "true")
	t.Setenv("DISB_SANDBOX_DECIDE_AFTER", "1s")
	in := startS11(t, false)
	in.AddUser(t, testkit.Partner, testkit.Nit, testkit.Password)
	tok := in.Token(t, testkit.Partner, testkit.Password)
	auth := map[string]string{"Authorization": "Bearer " + tok}
	stored := time.Now()
	accept, reject, normal := v1Report(t, in, tok, "SBX-ACEPTA-0001"), v1Report(t, in, tok, "SBX-RECHAZA-3-0001"), v1Report(t, in, tok, "CR-NORMAL-1")
	get := func(id int64) testkit.Reply {
		return testkit.Call(t, "GET", in.URL+"/v1/reports/"+strconv.FormatInt(id, 10), auth, nil)
	}
	deadline := time.Now().Add(15 * time.Second)
	for get(accept).Body["status"] != "accepted" || get(reject).Body["status"] != "rejected" {
		if time.Now().After(deadline) {
			t.Fatalf("the sandbox did not decide within 15 s: %s %s", get(accept).Raw, get(reject).Raw)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if since := time.Since(stored); since < time.Second {
		t.Errorf("decided %s after the reports were stored, before sandbox.decide_after (1s)", since)
	}
	if r := get(reject); r.Body["reason_code"] != "documento_ilegible" || r.Body["reason"] != domain.MsgSandboxReason {
		t.Errorf("the SBX-RECHAZA-3 report: %s; want the third reason code, documento_ilegible", r.Raw)
	}
	time.Sleep(1500 * time.Millisecond) // past decide_after and a round more
	if r := get(normal); r.Body["status"] != "received" {
		t.Errorf("a report with another credit number was decided by the sandbox: %s", r.Raw)
	}
	events := testkit.Call(t, "GET", in.URL+"/v1/events?type=report.accepted&type=report.rejected", auth, nil)
	if data, _ := events.Body["data"].([]any); events.Status != 200 || len(data) != 2 {
		t.Errorf("GET /v1/events of the decisions: %d %s; want the two sandbox decisions", events.Status, events.Raw)
	}
	code, out, _ := testkit.RunCLI(t, "", "reports", "show", strconv.FormatInt(accept, 10))
	if code != 0 || !strings.Contains(out, domain.DecidedBySandbox) {
		t.Errorf("reports show of the accepted report: %d %q; want it decided by %q", code, out, domain.DecidedBySandbox)
	}

	t.Setenv("DISB_SANDBOX_ENABLED", "false")
	off := startS11(t, false)
	off.AddUser(t, testkit.Partner, testkit.Nit, testkit.Password)
	offTok := off.Token(t, testkit.Partner, testkit.Password)
	id := v1Report(t, off, offTok, "SBX-ACEPTA-0002")
	time.Sleep(2500 * time.Millisecond)
	r := testkit.Call(t, "GET", off.URL+"/v1/reports/"+strconv.FormatInt(id, 10), map[string]string{"Authorization": "Bearer " + offTok}, nil)
	if r.Body["status"] != "received" {
		t.Errorf("an instance without sandbox.enabled decided a report by itself: %s", r.Raw)
	}
}
