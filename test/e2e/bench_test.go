package e2e

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/testkit"
)

// BenchmarkReport drives the whole service in process through a real
// listener: W1 (the full report, no file) and W2 (with a 200 KB PDF), each
// body with its own credit number. Run it with -cpuprofile to see where a
// report's time goes without a load generator in the way:
//
//	go test -run '^$' -bench BenchmarkReport -cpu 2 -cpuprofile cpu.out ./test/e2e/
func BenchmarkReport(b *testing.B) {
	for _, w := range []struct {
		name string
		file []byte
	}{{"W1", nil}, {"W2", fixture.PDF(200 << 10)}} {
		b.Run(w.name, func(b *testing.B) {
			in := testkit.MustStart(b, func(c *config.Config) {
				c.Log.Level, c.Auth.UserStaleness = "warn", config.Defaults().Auth.UserStaleness
			})
			in.AddUser(b, testkit.Partner, testkit.Nit, testkit.Password)
			tok := in.Token(b, testkit.Partner, testkit.Password)
			body := testkit.MustJSON(fixture.FullBody(time.Now(), "SENTINEL-CREDIT", w.file))
			at := bytes.Index(body, []byte("SENTINEL-CREDIT"))
			prefix, suffix := body[:at], body[at+len("SENTINEL-CREDIT"):]
			var seq atomic.Int64
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}}
			b.SetParallelism(16)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					credit := fmt.Sprintf("B%d-%d", time.Now().UnixNano()%1e6, seq.Add(1))
					req, _ := http.NewRequest("POST", in.URL+"/api/partner_api.php",
						io.MultiReader(bytes.NewReader(prefix), bytes.NewReader([]byte(credit)), bytes.NewReader(suffix)))
					req.ContentLength = int64(len(prefix) + len(credit) + len(suffix))
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("Authentication-Type", "bearer "+tok)
					resp, err := client.Do(req)
					if err != nil {
						b.Fatal(err)
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != 200 {
						b.Fatalf("%d", resp.StatusCode)
					}
				}
			})
		})
	}
}
