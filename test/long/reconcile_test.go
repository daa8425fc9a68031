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
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/storetest"
	"github.com/lender/disbursementd/test/testkit"
)

// monthReports is a partner's month, as issue 36 measured it.
const monthReports = 20_000

// TestReconcileMonthRecipe runs the partner guide's month reconciliation
// (docs/examples/reconcile/reconcile.py, as the guide shows it) against
// a real instance holding monthReports of the partner's reports in one
// month (seeded in bulk, with the columns the store writes), at the
// default look-up rate: it must reconcile with the partner's ledger, and
// find the one amount a changed ledger disagrees on. The recipe's wall
// time goes to the test log, for docs/performance.md.
func TestReconcileMonthRecipe(t *testing.T) {
	t.Parallel()
	reconcileMonth(t, func(*config.Config) {})
}

// TestReconcileMonthRecipeMySQL is TestReconcileMonthRecipe on MariaDB.
func TestReconcileMonthRecipeMySQL(t *testing.T) {
	t.Parallel()
	storetest.ServerDSN(t)
	reconcileMonth(t, testkit.WithMySQL(t))
}

func reconcileMonth(t *testing.T, store func(*config.Config)) {
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
	in := testkit.MustStart(t, store, func(c *config.Config) { c.HTTP.LookupRatePerPartner = 50 }) // the default rate
	in.AddUser(t, testkit.Partner, testkit.Nit, testkit.Password)
	tok := testkit.V1Token(t, in, testkit.Partner, testkit.Password)
	month := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	ledger := seedMonth(t, in, month)

	run := func(ledgerCSV string) (string, time.Duration, error) {
		path := filepath.Join(t.TempDir(), "ledger.csv")
		if err := os.WriteFile(path, []byte(ledgerCSV), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(python, script)
		cmd.Env = append(os.Environ(), "BASE_URL="+in.URL, "TOKEN="+tok, "MONTH=2026-10", "LEDGER="+path)
		start := time.Now()
		out, err := cmd.CombinedOutput()
		return string(out), time.Since(start), err
	}
	out, took, err := run(ledger)
	t.Logf("reconcile.py, %d reports on %s at the default look-up rate: wall time %s\n%s", monthReports, in.Config.Store.Driver, took.Round(10*time.Millisecond), out)
	if err != nil || !strings.Contains(out, fmt.Sprintf("2026-10: %d reports", monthReports)) || !strings.Contains(out, "missing 0, extra 0, amounts differ 0") {
		t.Fatalf("the month does not reconcile: %v\n%s", err, out)
	}
	// The same amount written another way (rates and money compare as
	// numbers), and one amount changed: only that one differs.
	changed := strings.Replace(ledger, "CR-M-00007,1007.50\n", "CR-M-00007,1007.5\n", 1)
	changed = strings.Replace(changed, "CR-M-00042,1042.50\n", "CR-M-00042,1042.51\n", 1)
	if out, _, err := run(changed); err == nil || !strings.Contains(out, "amounts differ 1") || !strings.Contains(out, "check CR-M-00042") {
		t.Fatalf("a changed ledger: %v\n%s", err, out)
	}
}

// seedMonth inserts monthReports of the partner's reports received in
// month, in batches of multi-row INSERTs with every field in the column
// form the store writes (domain.StoredValue), credit CR-M-i and Monto
// Aprobado 1000 + i + 0.50; it returns the partner's ledger of them.
func seedMonth(t *testing.T, in *testkit.Instance, month time.Time) string {
	t.Helper()
	cat := domain.DefaultCatalogue()
	rep, err := cat.MapReport(fixture.Members(fixture.FullBody(month, "CR-M-0", nil)), fixture.FileRules(), month)
	if err != nil {
		t.Fatal(err)
	}
	cols := []string{"received_at", "partner_user", "partner_nit", "payload_sha256"}
	var base []any
	credit, amount := -1, -1
	for i, f := range cat.Fields {
		v, ok := rep.At(i)
		if !ok {
			continue
		}
		switch f.Internal {
		case "numero_credito":
			credit = len(base)
		case "monto_aprobado":
			amount = len(base)
		}
		cols = append(cols, f.Internal)
		base = append(base, domain.StoredValue(f, v))
	}
	db := testkit.MustSQL(t, in.Config.Store.Driver, in.Config.Store.DSN)
	var ledger strings.Builder
	ledger.WriteString("numero_credito,monto_aprobado\n")
	row := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ") + ")"
	const batch = 200
	step := 30 * 24 * time.Hour / monthReports
	for start := 0; start < monthReports; start += batch {
		var values []string
		var args []any
		for i := start; i < start+batch; i++ {
			vals := append([]any{}, base...)
			vals[credit] = fmt.Sprintf("CR-M-%05d", i)
			vals[amount] = fmt.Sprintf("%d.50", 1000+i)
			fmt.Fprintf(&ledger, "CR-M-%05d,%d.50\n", i, 1000+i)
			values = append(values, row)
			args = append(append(args, month.Add(time.Duration(i)*step), testkit.Partner, testkit.Nit, fmt.Sprintf("%064d", i)), vals...)
		}
		if _, err := db.Exec("INSERT INTO "+gormstore.StagingTable+" ("+strings.Join(cols, ", ")+") VALUES "+strings.Join(values, ", "), args...); err != nil {
			t.Fatal(err)
		}
	}
	return ledger.String()
}
