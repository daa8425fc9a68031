package httpapi

import (
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
	"github.com/lender/disbursementd/test/fixture"
)

// catalogueValidator validates with the real catalogue: what a report's
// text costs is the domain's mapping, not a fake's.
type catalogueValidator struct{ fakeV1 }

func (catalogueValidator) Validate(_ context.Context, sub ports.Submission) error {
	_, err := domain.DefaultCatalogue().MapReportWith(sub.Members, fixture.FileRules(), time.Now(), sub.Read)
	return err
}

// TestTextThatGrowsUnderNFCCostsNoMore: a validate whose Observaciones is
// megabytes of U+1D160 (4 bytes, 12 in NFC) is refused 422 naming the
// field, through a real listener, and the request allocates no more than
// the same body in plain ASCII does (issue 32, finding 6: the text was put
// in NFC before its field's maximum was looked at, about fourteen times
// its size, past the byte budget's two per body byte).
func TestTextThatGrowsUnderNFCCostsNoMore(t *testing.T) {
	h, _ := newV1Harness(t, Limits{})
	h.rebuild(t, func(s *Server) { s.Validator = catalogueValidator{} })
	const size = 8 << 20
	allocated := func(text string) uint64 {
		body := fixture.DecimalsAsStrings(fixture.Minimal(time.Now(), "CR-NFC"))
		body["Observaciones"] = text
		raw, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		a := h.do(t, "POST", "/v1/reports/validate", v1Headers, string(raw))
		runtime.ReadMemStats(&after)
		errs, _ := a.body["errors"].([]any)
		if a.status != 422 || len(errs) != 1 || errs[0].(map[string]any)["field"] != "Observaciones" ||
			errs[0].(map[string]any)["code"] != domain.CodeTooLong {
			t.Fatalf("Observaciones of %d MiB: %d %.300s, want 422 with one too_long problem naming it", size>>20, a.status, a.raw)
		}
		return after.TotalAlloc - before.TotalAlloc
	}
	plain := allocated(strings.Repeat("a", size))
	grows := allocated(strings.Repeat("\U0001D160", size/4))
	t.Logf("allocated for an %d MiB text: %d MiB plain, %d MiB growing under NFC", size>>20, plain>>20, grows>>20)
	if grows > plain+size/4 {
		t.Errorf("the text that grows under NFC allocated %d bytes, the plain one %d: more than %d apart", grows, plain, size/4)
	}
}
