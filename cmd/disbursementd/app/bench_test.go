package app_test

import (
	"bytes"
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/testkit"
)

// BenchmarkReportW1 and BenchmarkReportW2 send reports one at a time
// through the service's real handler on SQLite, as
// TestAllocationsPerReport does: for profiles of a report's path
// (-cpuprofile, -memprofile) and its -benchmem figures. Each report has
// its own credit number; building its request is outside the timer.
func BenchmarkReportW1(b *testing.B) { benchReport(b, nil) }

func BenchmarkReportW2(b *testing.B) { benchReport(b, fixture.PDF(200<<10)) }

// productionAuth puts back the default user staleness that
// testkit.TestConfig sets to 0: with it, a report reads its user from
// the store instead of the cache, which a running service does not.
func productionAuth(c *config.Config) { c.Auth.UserStaleness = config.Defaults().Auth.UserStaleness }

func benchReport(b *testing.B, file []byte) {
	in := testkit.MustStart(b, productionAuth)
	in.AddUser(b, "bench", "900123456", "bench-password-1")
	tok := in.Token(b, "bench", "bench-password-1")
	h := in.Handler()
	template := fixture.JSON(fixture.FullBody(time.Now().UTC(), "SENTINEL-CREDIT", file))
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		body := bytes.Replace(template, []byte("SENTINEL-CREDIT"), []byte(fmt.Sprintf("B-%d-%09d", b.N, i)), 1)
		r := httptest.NewRequest("POST", "/api/partner_api.php", bytes.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Authentication-Type", "bearer "+tok)
		r.RemoteAddr = "127.0.0.1:40000"
		rec := httptest.NewRecorder()
		b.StartTimer()
		h.ServeHTTP(rec, r)
		if rec.Code != 200 {
			b.Fatalf("%d %s", rec.Code, rec.Body.Bytes())
		}
	}
}
