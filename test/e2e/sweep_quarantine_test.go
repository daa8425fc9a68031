package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/testkit"
)

// orphans writes files no report names into dir, dated an hour ago: what
// a database restored from an older backup leaves.
func orphans(t *testing.T, dir string, names ...string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o750); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	for i, n := range names {
		p := filepath.Join(dir, n)
		if err := os.WriteFile(p, fixture.PDF(900+i), 0o640); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
}

// TestServeQuarantinesAndGoesOnPastFailures: serve's sweep at start
// moves files no report names to quarantine instead of deleting them;
// while it cannot (here the quarantine's place is taken by a plain file),
// each failure is logged and counted, the run is counted incomplete, the
// files stay where they are, and later runs try again.
func TestServeQuarantinesAndGoesOnPastFailures(t *testing.T) {
	t.Parallel()
	names := []string{"partner_CR-R-1_20261126T100000000Z.pdf", "partner_CR-R-2_20261126T100000001Z.pdf"}
	var uploads string
	in := testkit.MustStart(t, func(c *config.Config) {
		c.HTTP.ReportTimeout = time.Second
		c.Uploads.SweepInterval = time.Second
		uploads = c.Uploads.Dir
		orphans(t, uploads, names...)
		if err := os.WriteFile(filepath.Join(uploads, ".quarantine"), []byte("in the way"), 0o640); err != nil {
			t.Fatal(err)
		}
	})
	testkit.WaitFor(t, "an incomplete sweep", 20*time.Second, func() bool {
		return testkit.Metric(t, in, `disbursementd_sweep_runs_total{outcome="incomplete"}`) >= 2
	})
	if n := testkit.Metric(t, in, `disbursementd_sweep_failures_total{kind="orphan_file"}`); n < 4 {
		t.Fatalf("failures counted: %d, want both files in each of two runs", n)
	}
	if !strings.Contains(in.Logs.String(), "the sweep could not do this") || !strings.Contains(in.Logs.String(), names[1]) {
		t.Fatalf("the failures are not logged by file:\n%.3000s", in.Logs.String())
	}
	for _, n := range names {
		if _, err := os.Stat(filepath.Join(uploads, n)); err != nil {
			t.Fatalf("%s is gone though it could not be quarantined: %v", n, err)
		}
	}
	if err := os.Remove(filepath.Join(uploads, ".quarantine")); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the files in quarantine", 20*time.Second, func() bool {
		return testkit.Metric(t, in, "disbursementd_sweep_quarantined_files") == 2
	})
	for i, n := range names {
		got, err := os.ReadFile(filepath.Join(uploads, ".quarantine", n))
		if err != nil || string(got) != string(fixture.PDF(900+i)) {
			t.Fatalf("%s in quarantine: %v", n, err)
		}
		if _, err := os.Stat(filepath.Join(uploads, n)); !os.IsNotExist(err) {
			t.Fatalf("%s still published: %v", n, err)
		}
	}
	if n := testkit.Metric(t, in, `disbursementd_sweep_findings_total{kind="orphan_file"}`); n != 2 {
		t.Fatalf("orphan files found: %d, want 2 (a quarantined file is not found again)", n)
	}
}

// TestSweepIntervalZeroIsOff: uploads.sweep_interval 0 means what an
// operator reads: serve does not sweep, not even at start.
func TestSweepIntervalZeroIsOff(t *testing.T) {
	t.Parallel()
	name := "partner_CR-OFF-1_20261126T100000000Z.pdf"
	var uploads string
	in := testkit.MustStart(t, func(c *config.Config) {
		c.HTTP.ReportTimeout = time.Second
		c.Uploads.SweepInterval = 0
		uploads = c.Uploads.Dir
		orphans(t, uploads, name)
	})
	time.Sleep(3 * time.Second)
	if _, err := os.Stat(filepath.Join(uploads, name)); err != nil {
		t.Fatalf("with the sweep off the orphan moved: %v", err)
	}
	if n := testkit.Metric(t, in, `disbursementd_sweep_runs_total{outcome="ok"}`) + testkit.Metric(t, in, `disbursementd_sweep_runs_total{outcome="incomplete"}`); n != 0 {
		t.Fatalf("%d sweeps ran with uploads.sweep_interval 0", n)
	}
	if !strings.Contains(in.Logs.String(), "the sweep is off") {
		t.Fatal("serve does not say that the sweep is off")
	}
}
