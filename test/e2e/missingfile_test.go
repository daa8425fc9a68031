package e2e

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/testkit"
)

var missingFilesMetric = regexp.MustCompile(`(?m)^disbursementd_missing_files_total (\d+)$`)

// TestMissingFileIsLoggedAndCounted: a stored report whose file goes
// missing is logged by serve's sweep and counted in
// disbursementd_missing_files_total, once however many runs follow; a
// retry of that report gets 503, not a 200 naming the missing file.
func TestMissingFileIsLoggedAndCounted(t *testing.T) {
	t.Parallel()
	in := testkit.MustStart(t, func(c *config.Config) {
		c.HTTP.ReportTimeout = time.Second // stale bound: 6 s
		c.Uploads.SweepInterval = time.Second
	})
	in.AddUser(t, testkit.Partner, testkit.Nit, testkit.Password)
	tok := in.Token(t, testkit.Partner, testkit.Password)
	body := testkit.MustJSON(fixture.FullBody(time.Now(), "CR-MISSING-1", fixture.PDF(8<<10)))
	r := in.Report(t, tok, body, "Idempotency-Key", "missing-1")
	name, _ := r.Body["file"].(string)
	if r.Status != 200 || name == "" {
		t.Fatalf("report: %d %s", r.Status, r.Raw)
	}
	if err := in.Uploads.Remove(context.Background(), name); err != nil {
		t.Fatal(err)
	}
	counted := func() string {
		m := missingFilesMetric.FindSubmatch(testkit.Call(t, "GET", in.URL+"/metrics", nil, nil).Raw)
		if m == nil {
			t.Fatal("/metrics lacks disbursementd_missing_files_total")
		}
		return string(m[1])
	}
	if n := counted(); n != "0" {
		t.Fatalf("missing files before the sweep: %s", n)
	}
	testkit.WaitFor(t, "the sweep to count the missing file", 30*time.Second, func() bool { return counted() != "0" })
	time.Sleep(2500 * time.Millisecond) // two more runs
	if n := counted(); n != "1" {
		t.Fatalf("disbursementd_missing_files_total = %s; want 1 (each row once)", n)
	}
	if logged := strings.Count(in.Logs.String(), "a stored report's file is missing"); logged != 1 {
		t.Fatalf("%d log lines for the missing file, want 1:\n%s", logged, in.Logs.String())
	}
	if !strings.Contains(in.Logs.String(), name) {
		t.Fatal("the log line does not name the file")
	}
	retry := in.Report(t, tok, body, "Idempotency-Key", "missing-1")
	if retry.Status != 503 || retry.Body["code"] != "file_store_failed" {
		t.Fatalf("retry of a report whose file is missing: %d %s; want 503 file_store_failed", retry.Status, retry.Raw)
	}
}
