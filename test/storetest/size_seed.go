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

// SizeBase is the receipt time of the first seeded row (SeedRows). Two
// rows share each second, so pages end between rows of one time and the
// id decides.
var SizeBase = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// SeedAtSize inserts SizeRows rows of SizeUser and SizeOtherRows of
// SizeOther into the migrated store at driver and dsn (SeedRows), and
// updates the planner's statistics. It returns how long the inserts took,
// for the log.
func SeedAtSize(tb testing.TB, driver, dsn string) time.Duration {
	tb.Helper()
	ctx := context.Background()
	start := time.Now()
	if err := SeedRows(ctx, driver, dsn, SizeUser, "k-", SizeRows); err != nil {
		tb.Fatal(err)
	}
	if err := SeedRows(ctx, driver, dsn, SizeOther, "s-", SizeOtherRows); err != nil {
		tb.Fatal(err)
	}
	took := time.Since(start)
	if err := Analyze(ctx, driver, dsn); err != nil {
		tb.Fatal(err)
	}
	return took
}

// SeedRows inserts n rows of user into the migrated store at driver and
// dsn, in bulk: one INSERT … SELECT over MariaDB's sequence engine
// (seq_1_to_N), or over a recursive CTE on SQLite. Row i (1 ≤ i ≤ n) is
// received at SizeBase + i/2 seconds, has credit number CR-nnn (i mod
// 1000, three digits) and Idempotency-Key keyPrefix + i. A running
// service may share the store (the load tool's list-flood).
func SeedRows(ctx context.Context, driver, dsn, user, keyPrefix string, n int) error {
	db, err := OpenSQL(driver, dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	insert := "INSERT INTO " + gormstore.StagingTable + " (received_at, partner_user, numero_credito, idempotency_key, payload_sha256) "
	var stmt string
	switch driver {
	case gormstore.MySQL:
		stmt = insert + fmt.Sprintf("SELECT TIMESTAMP'%s' + INTERVAL (seq DIV 2) SECOND, ?, CONCAT('CR-', LPAD(seq MOD 1000, 3, '0')), "+
			"CONCAT(?, seq), 'p' FROM seq_1_to_%d", SizeBase.Format("2006-01-02 15:04:05"), n)
	default:
		// Ten indexes take their entries in no order: a cache that holds
		// them keeps the insert from rereading pages (64 MiB, this
		// connection only).
		if _, err := conn.ExecContext(ctx, "PRAGMA cache_size = -65536"); err != nil {
			return err
		}
		// The text SQLite keeps (the store's time layout): whole seconds
		// are written without a fraction, the zone as +00:00.
		stmt = fmt.Sprintf("WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < %d) ", n) + insert +
			fmt.Sprintf("SELECT strftime('%%Y-%%m-%%d %%H:%%M:%%S', %d + n / 2, 'unixepoch') || '+00:00', ?, printf('CR-%%03d', n %% 1000), ? || n, 'p' FROM seq",
				SizeBase.Unix())
	}
	if _, err := conn.ExecContext(ctx, stmt, user, keyPrefix); err != nil {
		return fmt.Errorf("seed %d rows of %s: %w", n, user, err)
	}
	return nil
}

// Analyze updates the planner's statistics of the staging table.
func Analyze(ctx context.Context, driver, dsn string) error {
	db, err := OpenSQL(driver, dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	stmt := "ANALYZE"
	if driver == gormstore.MySQL {
		stmt = "ANALYZE TABLE " + gormstore.StagingTable
	}
	_, err = db.ExecContext(ctx, stmt)
	return err
}
