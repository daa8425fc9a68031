package httpapi

import (
	"fmt"
	"strings"
	"testing"
)

// TestDecisionsCounted: disbursementd_decisions_total counts what each
// decision of the decision API came to, by decision and outcome: applied
// once per report, the same decision again as already_so, a different
// one as conflict; a decision refused for its input or for a missing
// report is not counted. Every series is on /metrics from the start.
func TestDecisionsCounted(t *testing.T) {
	x := newS11(t, Limits{})
	before := string(x.do(t, "GET", "/metrics", nil, "").raw)
	for _, o := range []string{"applied", "already_so", "conflict"} {
		for _, d := range []string{"accepted", "rejected"} {
			if series := `disbursementd_decisions_total{decision="` + d + `",outcome="` + o + `"} 0`; !strings.Contains(before, series) {
				t.Errorf("/metrics lacks %s before any decision", series)
			}
		}
	}
	bo := x.backoffice(t, "cartera")
	x.report(t, "CR-1")
	x.report(t, "CR-2")
	for _, d := range []struct {
		id     float64
		body   string
		status int
	}{
		{1, acceptBody, 200}, {1, acceptBody, 200}, {1, rejectBody, 409}, {2, rejectBody, 200},
		{2, `{"decision":"maybe"}`, 422}, {99, acceptBody, 404},
	} {
		if a := x.decide(t, bo, d.id, d.body); a.status != d.status {
			t.Fatalf("decision %s on %v: %d %s, want %d", d.body, d.id, a.status, a.raw, d.status)
		}
	}
	want := map[[2]string]float64{
		{"accepted", "applied"}: 1, {"accepted", "already_so"}: 1, {"accepted", "conflict"}: 0,
		{"rejected", "applied"}: 1, {"rejected", "already_so"}: 0, {"rejected", "conflict"}: 1,
	}
	after := string(x.do(t, "GET", "/metrics", nil, "").raw)
	for k, n := range want {
		if series := fmt.Sprintf(`disbursementd_decisions_total{decision=%q,outcome=%q} %v`, k[0], k[1], n); !strings.Contains(after, series+"\n") {
			t.Errorf("/metrics lacks %s", series)
		}
	}
}
