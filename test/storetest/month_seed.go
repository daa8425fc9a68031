package storetest

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/fixture"
)

// SeedMonthFor inserts n reports of user (NIT nit) received in month into
// the migrated store at driver and dsn (SeedMonth) and returns the
// partner's ledger of them. On SQLite it runs the seed command, built
// without the race detector (seedCommand): in a -race test binary the
// 20,000 full rows of a month took about 30 s of the engine's Go code.
func SeedMonthFor(tb testing.TB, driver, dsn, user, nit string, month time.Time, n int) string {
	tb.Helper()
	if driver != gormstore.SQLite {
		ledger, err := SeedMonth(context.Background(), driver, dsn, user, nit, month, n)
		if err != nil {
			tb.Fatal(err)
		}
		return ledger
	}
	out, err := exec.Command(seedBinary(tb), driver, dsn, "month", user, nit, month.Format(time.RFC3339Nano), fmt.Sprint(n)).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			tb.Fatalf("seed month: %v\n%s", err, ee.Stderr)
		}
		tb.Fatalf("seed month: %v", err)
	}
	return string(out)
}

// SeedMonth inserts n reports of user (NIT nit) received across the
// calendar month that starts at month, in batches of multi-row INSERTs
// with every field of the fixture's full report in the column form the
// store writes (domain.StoredValue): credit CR-M-i (five digits) and
// Monto Aprobado 1000 + i + 0.50, received evenly from the month's start.
// It returns the partner's ledger of them, as CSV
// (numero_credito,monto_aprobado).
func SeedMonth(ctx context.Context, driver, dsn, user, nit string, month time.Time, n int) (string, error) {
	if n <= 0 || n > 99_999 {
		return "", fmt.Errorf("seed month: %d reports; want 1 to 99,999 (five-digit credit numbers)", n)
	}
	cat := domain.DefaultCatalogue()
	rep, err := cat.MapReport(fixture.Members(fixture.FullBody(month, "CR-M-0", nil)), fixture.FileRules(), month)
	if err != nil {
		return "", err
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
	if credit < 0 || amount < 0 {
		return "", fmt.Errorf("the full report has no numero_credito or monto_aprobado")
	}
	db, err := OpenSQL(driver, dsn)
	if err != nil {
		return "", err
	}
	defer db.Close()
	var ledger strings.Builder
	ledger.WriteString("numero_credito,monto_aprobado\n")
	row := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ") + ")"
	const batch = 200
	step := month.AddDate(0, 1, 0).Sub(month) / time.Duration(n)
	for start := 0; start < n; start += batch {
		var values []string
		var args []any
		for i := start; i < start+batch && i < n; i++ {
			vals := append([]any{}, base...)
			vals[credit] = fmt.Sprintf("CR-M-%05d", i)
			vals[amount] = fmt.Sprintf("%d.50", 1000+i)
			fmt.Fprintf(&ledger, "CR-M-%05d,%d.50\n", i, 1000+i)
			values = append(values, row)
			args = append(append(args, month.Add(time.Duration(i)*step), user, nit, fmt.Sprintf("%064d", i)), vals...)
		}
		if _, err := db.ExecContext(ctx, "INSERT INTO "+gormstore.StagingTable+" ("+strings.Join(cols, ", ")+") VALUES "+strings.Join(values, ", "), args...); err != nil {
			return "", fmt.Errorf("seed reports %d-: %w", start, err)
		}
	}
	return ledger.String(), nil
}

// seedBinary builds the seed command (test/storetest/seed) without the
// race detector into the test's temporary directory.
func seedBinary(tb testing.TB) string {
	tb.Helper()
	bin := filepath.Join(tb.TempDir(), "seed")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/lender/disbursementd/test/storetest/seed").CombinedOutput(); err != nil {
		tb.Fatalf("build the seed command: %v\n%s", err, out)
	}
	return bin
}
