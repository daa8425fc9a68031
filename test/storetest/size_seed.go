package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/gormstore"
)

// SizeRows is how many reports the look-ups at size are asked on, all of
// one partner (SizeUser); SizeOther, another partner, has SizeOtherRows
// among them.
const (
	SizeRows      = 1_000_000
	SizeUser      = "big"
	SizeOther     = "small"
	SizeOtherRows = 10
)

// SizeBase is the receipt time of the first seeded row. Row n (1 ≤ n ≤
// SizeRows) is received at SizeBase + n/2 seconds (two rows share each
// second, so pages end between rows of one time and the id decides),
// has credit number CR-nnn (n mod 1000, three digits) and key k-n.
var SizeBase = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// SeedAtSize inserts SizeRows rows of SizeUser and SizeOtherRows of
// SizeOther into the migrated store at driver and dsn, in bulk: one
// INSERT … SELECT over MariaDB's sequence engine (seq_1_to_N), or over a
// recursive CTE on SQLite. It returns how long that took, for the log.
func SeedAtSize(tb testing.TB, driver, dsn string) time.Duration {
	tb.Helper()
	db, err := OpenSQL(driver, dsn)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close()
	if driver == gormstore.SQLite {
		// Ten indexes take their entries in no order: a cache that holds
		// them keeps the insert from rereading pages (256 MiB, this
		// connection only).
		if _, err := conn.ExecContext(ctx, "PRAGMA cache_size = -262144"); err != nil {
			tb.Fatal(err)
		}
	}
	start := time.Now()
	cols := "INSERT INTO " + gormstore.StagingTable + " (received_at, partner_user, numero_credito, idempotency_key, payload_sha256) "
	var stmts []string
	switch driver {
	case gormstore.MySQL:
		at := fmt.Sprintf("TIMESTAMP'%s' + INTERVAL (seq DIV 2) SECOND", SizeBase.Format("2006-01-02 15:04:05"))
		stmts = []string{
			cols + fmt.Sprintf("SELECT %s, '%s', CONCAT('CR-', LPAD(seq MOD 1000, 3, '0')), CONCAT('k-', seq), 'p' FROM seq_1_to_%d",
				at, SizeUser, SizeRows),
			cols + fmt.Sprintf("SELECT %s, '%s', 'CR-007', CONCAT('s-', seq), 'p' FROM seq_1_to_%d",
				at, SizeOther, SizeOtherRows),
		}
	default:
		// The text SQLite keeps (the store's time layout): whole seconds
		// are written without a fraction, the zone as +00:00.
		at := fmt.Sprintf("strftime('%%Y-%%m-%%d %%H:%%M:%%S', %d + n / 2, 'unixepoch') || '+00:00'", SizeBase.Unix())
		seq := func(n int) string {
			return fmt.Sprintf("WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < %d) ", n)
		}
		stmts = []string{
			seq(SizeRows) + cols + fmt.Sprintf("SELECT %s, '%s', printf('CR-%%03d', n %% 1000), 'k-' || n, 'p' FROM seq", at, SizeUser),
			seq(SizeOtherRows) + cols + fmt.Sprintf("SELECT %s, '%s', 'CR-007', 's-' || n, 'p' FROM seq", at, SizeOther),
		}
	}
	for _, s := range stmts {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			tb.Fatalf("seed: %v", err)
		}
	}
	took := time.Since(start)
	analyze := "ANALYZE"
	if driver == gormstore.MySQL {
		analyze = "ANALYZE TABLE " + gormstore.StagingTable
	}
	if _, err := conn.ExecContext(ctx, analyze); err != nil {
		tb.Fatal(err)
	}
	return took
}
