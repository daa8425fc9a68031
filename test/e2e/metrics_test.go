package e2e

import (
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/cmd/disbursementd/app"
	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/test/testkit"
)

// TestMetricsOnTheirOwnListener: with http.metrics_addr set, /metrics is
// served there (with pprof when debug.pprof_addr is the same address) and
// the partner-facing port answers 404 for it; the build and the pools are
// described.
func TestMetricsOnTheirOwnListener(t *testing.T) {
	t.Parallel()
	in := testkit.MustStart(t, func(c *config.Config) {
		c.HTTP.MetricsAddr, c.Debug.PprofAddr = "127.0.0.1:0", "127.0.0.1:0"
		c.Throttle.Backend = "database"
	})
	if in.MetricsAddr == "" {
		t.Fatal("Run did not say where /metrics is")
	}
	if r := testkit.Call(t, "GET", in.URL+"/metrics", nil, nil); r.Status != 404 {
		t.Errorf("/metrics on the partner-facing port: %d", r.Status)
	}
	text := testkit.Scrape(t, "http://"+in.MetricsAddr+"/metrics")
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^disbursementd_build_info\{commit="[^"]+",go_version="go[^"]+",version="[^"]+"\} 1$`),
		regexp.MustCompile(`(?m)^go_sql_max_open_connections\{db_name="store"\} 1$`),
		regexp.MustCompile(`(?m)^go_sql_max_open_connections\{db_name="store_read"\} 4$`),
		regexp.MustCompile(`(?m)^go_sql_max_open_connections\{db_name="throttle"\} 1$`),
		regexp.MustCompile(`(?m)^disbursementd_http_requests_total\{`),
	} {
		if !want.MatchString(text) {
			t.Errorf("/metrics on http.metrics_addr lacks %s", want)
		}
	}
	// "127.0.0.1:0" twice is one listener for both (the same address).
	resp, err := http.Get("http://" + in.MetricsAddr + "/debug/pprof/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("pprof beside /metrics: %d", resp.StatusCode)
	}
}

// TestReadinessIsAMetric: disbursementd_ready{check} follows the checks
// without any probe (the service runs them on a timer), and /readyz sets
// it too.
func TestReadinessIsAMetric(t *testing.T) {
	t.Parallel()
	in := testkit.MustStartMain(t, func(m *app.Main) { m.ReadinessInterval = 100 * time.Millisecond })
	ready := func(check string) string {
		m := regexp.MustCompile(`(?m)^disbursementd_ready\{check="` + check + `"\} (\d)$`).FindStringSubmatch(testkit.Scrape(t, in.URL+"/metrics"))
		if m == nil {
			return "absent"
		}
		return m[1]
	}
	testkit.WaitFor(t, "every check ready without a probe", 20*time.Second, func() bool {
		return ready("store") == "1" && ready("uploads") == "1" && ready("keys") == "1"
	})
	if err := os.RemoveAll(in.Config.Uploads.Dir); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the uploads check failing without a probe", 20*time.Second, func() bool { return ready("uploads") == "0" })
	if ready("store") != "1" {
		t.Errorf("store %s while only the uploads failed", ready("store"))
	}
	if strings.Contains(in.Logs.String(), `"route":"/readyz"`) {
		t.Error("the test meant to run no probe")
	}
}
