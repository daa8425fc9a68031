package long

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/test/storetest"
	"github.com/lender/disbursementd/test/testkit"
)

// monthReports is a partner's month, as issue 36 measured it.
const monthReports = 20_000

// TestReconcileMonthRecipe runs the partner guide's month reconciliation
// (docs/examples/reconcile/reconcile.py, as the guide shows it) against
// the service's binary (built without the race detector, as partners
// meet it) holding monthReports of the partner's reports in one month
// (seeded in bulk, with the columns the store writes), at the default
// look-up rate: it must reconcile with the partner's ledger, and find the
// one amount a changed ledger disagrees on. The recipe's wall time goes to
// the test log, for docs/performance.md. An instance in this test binary
// would serve the 400 pages under -race, which took 40 s a run on SQLite
// (the engine is Go code here) where the rate's 4 s is what a partner
// waits. The list and its CSV export stay under the race detector in
// test/e2e (TestV1SQLite and TestV1MySQL: paging and the rate;
// TestV1ListFieldsSQLite and TestV1ListFieldsMySQL: the export).
func TestReconcileMonthRecipe(t *testing.T) {
	t.Parallel()
	reconcileMonth(t, false)
}

// TestReconcileMonthRecipeMySQL is TestReconcileMonthRecipe on MariaDB.
func TestReconcileMonthRecipeMySQL(t *testing.T) {
	t.Parallel()
	storetest.ServerDSN(t)
	reconcileMonth(t, true)
}

func reconcileMonth(t *testing.T, mysql bool) {
	if testing.Short() {
		t.Skip("20,000 reports and a month's export: not in -short")
	}
	python, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true and python3 is not installed")
		}
		t.Skip("python3 is not installed")
	}
	script := testkit.RepoPath(t, "docs/examples/reconcile/reconcile.py")
	text, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	guide, err := os.ReadFile(testkit.RepoPath(t, "docs/partner-guide.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(guide), "```python\n"+string(text)+"```\n") {
		t.Fatal("docs/partner-guide.md: the reconciliation's ```python block is not docs/examples/reconcile/reconcile.py as it is")
	}
	// The service's defaults (http.lookup_rate_per_partner 50 among
	// them), on SQLite in its directory or on a fresh MariaDB database.
	dir := t.TempDir()
	driver, dsn := gormstore.SQLite, filepath.Join(dir, config.DefaultSQLitePath)
	if mysql {
		driver, dsn = gormstore.MySQL, storetest.MustCreateDatabase(t)
	}
	env := testkit.BaseEnv("DISB_STORE_DRIVER="+driver, "DISB_STORE_DSN="+dsn)
	if out, err := testkit.CLI(t, dir, env, "", "migrate"); err != nil {
		t.Fatalf("migrate: %v\n%s", err, out)
	}
	if out, err := testkit.CLI(t, dir, env, testkit.Password+"\n", "users", "add", "--user", testkit.Partner, "--nit", testkit.Nit); err != nil {
		t.Fatalf("users add: %v\n%s", err, out)
	}
	month := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	ledger := storetest.SeedMonthFor(t, driver, dsn, testkit.Partner, testkit.Nit, month, monthReports)
	p := testkit.StartProcess(t, dir, env)
	tok := testkit.V1TokenAt(t, p.URL, testkit.Partner, testkit.Password)

	run := func(ledgerCSV string) (string, time.Duration, error) {
		path := filepath.Join(t.TempDir(), "ledger.csv")
		if err := os.WriteFile(path, []byte(ledgerCSV), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(python, script)
		cmd.Env = append(os.Environ(), "BASE_URL="+p.URL, "TOKEN="+tok, "MONTH=2026-10", "LEDGER="+path)
		start := time.Now()
		out, err := cmd.CombinedOutput()
		return string(out), time.Since(start), err
	}
	out, took, err := run(ledger)
	t.Logf("reconcile.py, %d reports on %s at the default look-up rate: wall time %s\n%s", monthReports, driver, took.Round(10*time.Millisecond), out)
	if err != nil || !strings.Contains(out, fmt.Sprintf("2026-10: %d reports", monthReports)) || !strings.Contains(out, "missing 0, extra 0, amounts differ 0") {
		t.Fatalf("the month does not reconcile: %v\n%s\nthe service's log:\n%s", err, out, p.Logs.String())
	}
	// The same amount written another way (rates and money compare as
	// numbers), and one amount changed: only that one differs.
	changed := strings.Replace(ledger, "CR-M-00007,1007.50\n", "CR-M-00007,1007.5\n", 1)
	changed = strings.Replace(changed, "CR-M-00042,1042.50\n", "CR-M-00042,1042.51\n", 1)
	if !strings.Contains(changed, "CR-M-00007,1007.5\n") || !strings.Contains(changed, "CR-M-00042,1042.51\n") {
		t.Fatal("the changed ledger is not the ledger with its two lines changed")
	}
	if out, _, err := run(changed); err == nil || !strings.Contains(out, "amounts differ 1") || !strings.Contains(out, "check CR-M-00042") {
		t.Fatalf("a changed ledger: %v\n%s", err, out)
	}
}
