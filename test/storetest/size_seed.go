package storetest

import (
	"context"
	"database/sql"
	"fmt"
	"os/exec"
	"strconv"
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
	seed := func(user, prefix string, n int) error { return SeedRows(ctx, driver, dsn, user, prefix, n) }
	analyze := func() error { return Analyze(ctx, driver, dsn) }
	if driver == gormstore.SQLite {
		seed, analyze = seedCommand(tb, dsn)
	}
	start := time.Now()
	if err := seed(SizeUser, "k-", SizeRows); err != nil {
		tb.Fatal(err)
	}
	if err := seed(SizeOther, "s-", SizeOtherRows); err != nil {
		tb.Fatal(err)
	}
	took := time.Since(start)
	if err := analyze(); err != nil {
		tb.Fatal(err)
	}
	return took
}

// seedCommand seeds and analyzes the SQLite store at path through the seed
// command (test/storetest/seed), built without the race detector: SQLite
// is Go code here, and instrumented each takes minutes over a million rows
// (in the test process the ANALYZE alone took about 195 of the test's 263 s).
func seedCommand(tb testing.TB, path string) (seed func(user, prefix string, n int) error, analyze func() error) {
	tb.Helper()
	bin := seedBinary(tb)
	run := func(args ...string) error {
		if out, err := exec.Command(bin, append([]string{gormstore.SQLite, path}, args...)...).CombinedOutput(); err != nil {
			return fmt.Errorf("seed %v: %v\n%s", args, err, out)
		}
		return nil
	}
	return func(user, prefix string, n int) error { return run(user, prefix, strconv.Itoa(n)) },
		func() error { return run("analyze") }
}

// SeedRows inserts n rows of user into the migrated store at driver and
// dsn, in bulk: one INSERT … SELECT over MariaDB's sequence engine
// (seq_1_to_N), or over a recursive CTE on SQLite (seedSQLite). Row i
// (1 ≤ i ≤ n) is received at SizeBase + i/2 seconds, has credit number
// CR-nnn (i mod 1000, three digits) and Idempotency-Key keyPrefix + i. A
// running service may share the store (the load tool's list-flood).
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
	if driver != gormstore.MySQL {
		return seedSQLite(ctx, conn, user, keyPrefix, n)
	}
	stmt := "INSERT INTO " + gormstore.StagingTable + " (received_at, partner_user, numero_credito, idempotency_key, payload_sha256) " +
		fmt.Sprintf("SELECT TIMESTAMP'%s' + INTERVAL (seq DIV 2) SECOND, ?, CONCAT('CR-', LPAD(seq MOD 1000, 3, '0')), CONCAT(?, seq), 'p' FROM seq_1_to_%d",
			SizeBase.Format("2006-01-02 15:04:05"), n)
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

// seedSQLite is SeedRows on SQLite, in one transaction: the staging
// table's indexes are dropped, the rows inserted, and the indexes made
// again from their own CREATE statements, as the migrations left them.
// Building an index from sorted entries is many times faster than
// inserting 10^6 rows into ten indexes in no order, which matters most
// nobody sees the table without its indexes.
func seedSQLite(ctx context.Context, conn *sql.Conn, user, keyPrefix string, n int) (err error) {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	rows, err := tx.QueryContext(ctx, "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL", gormstore.StagingTable)
	if err != nil {
		return err
	}
	var names, creates []string
	for rows.Next() {
		var name, create string
		if err := rows.Scan(&name, &create); err != nil {
			rows.Close()
			return err
		}
		names, creates = append(names, name), append(creates, create)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, name := range names {
		if _, err := tx.ExecContext(ctx, "DROP INDEX "+name); err != nil {
			return err
		}
	}
	// The text SQLite keeps (the store's time layout): whole seconds are
	// written without a fraction, the zone as +00:00.
	insert := fmt.Sprintf("WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < %d) ", n) +
		"INSERT INTO " + gormstore.StagingTable + " (received_at, partner_user, numero_credito, idempotency_key, payload_sha256) " +
		fmt.Sprintf("SELECT strftime('%%Y-%%m-%%d %%H:%%M:%%S', %d + n / 2, 'unixepoch') || '+00:00', ?, printf('CR-%%03d', n %% 1000), ? || n, 'p' FROM seq",
			SizeBase.Unix())
	if _, err := tx.ExecContext(ctx, insert, user, keyPrefix); err != nil {
		return fmt.Errorf("seed %d rows of %s: %w", n, user, err)
	}
	for _, create := range creates {
		if _, err := tx.ExecContext(ctx, create); err != nil {
			return err
		}
	}
	return tx.Commit()
}
