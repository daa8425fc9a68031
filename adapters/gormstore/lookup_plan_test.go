package gormstore_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/ports"
	"github.com/lender/disbursementd/test/storetest"
)

// TestLookupPlansSQLite and TestLookupPlansMySQL: every statement of the
// partner's look-ups (GetReport, and ListReports with each set of
// filters) reads through an index, never a scan of the table, and sorts
// nothing, on a small table of several partners with planner statistics.
// The plans are logged (go test -v). That a page reads at most limit+1
// entries at 10^6 rows is the store suite's (storetest.RunLookupsAtSize);
// this test keeps the plan of each shape visible and quick to check.
func TestLookupPlansSQLite(t *testing.T) {
	t.Parallel()
	path := storetest.SQLitePath(t)
	st := storetest.MustOpen(t, gormstore.SQLite, path, gormstore.Options{})
	lookupPlans(t, st, gormstore.SQLite, path)
}

func TestLookupPlansMySQL(t *testing.T) {
	t.Parallel()
	dsn := storetest.MustCreateDatabase(t)
	st := storetest.MustOpen(t, gormstore.MySQL, dsn, gormstore.Options{})
	lookupPlans(t, st, gormstore.MySQL, dsn)
}

// planRows is how many staging rows the plans are asked on: 6 partners,
// one of them with half the rows.
const planRows = 6000

func lookupPlans(t *testing.T, st *gormstore.Store, driver, dsn string) {
	db, err := storetest.OpenDB(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer storetest.CloseDB(db)
	base := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	seedPlanRows(t, db, base)
	analyze := "ANALYZE"
	if driver == gormstore.MySQL {
		analyze = "ANALYZE TABLE " + gormstore.StagingTable + " PERSISTENT FOR ALL"
	}
	if err := db.Exec(analyze).Error; err != nil {
		t.Fatal(err)
	}
	day := base.AddDate(0, 0, 20)
	// after is the list position of seeded row i (id i+1).
	after := func(i int) ports.ListPosition {
		return ports.ListPosition{ReceivedAt: base.Add(time.Duration(i) * (30 * 24 * time.Hour / planRows)), ID: int64(i + 1)}
	}
	for _, tt := range []struct {
		name  string
		query string
		args  []any
	}{
		{"get one report", gormstore.GetQuery(st), []any{int64(4321), "p0"}},
		list(st, "list all", ports.ReportFilter{User: "p0", Limit: 101}),
		list(st, "list after a cursor", ports.ReportFilter{User: "p0", After: after(2499), Limit: 101}),
		list(st, "list by credit after a cursor", ports.ReportFilter{User: "p0", CreditNumber: "CR-00042", After: after(252), Limit: 101}),
		list(st, "list by credit", ports.ReportFilter{User: "p0", CreditNumber: "CR-00042", Limit: 101}),
		list(st, "list by key", ports.ReportFilter{User: "p0", IdempotencyKey: "key-00042", Limit: 101}),
		list(st, "list a day", ports.ReportFilter{User: "p0", From: day, To: day.AddDate(0, 0, 1), Limit: 101}),
		list(st, "list a day after a cursor", ports.ReportFilter{User: "p0", From: day, To: day.AddDate(0, 0, 1), After: after(4001), Limit: 101}),
		list(st, "list from a date", ports.ReportFilter{User: "p0", From: day, Limit: 101}),
		list(st, "list by credit in a day", ports.ReportFilter{User: "p0", CreditNumber: "CR-00042", From: day, To: day.AddDate(0, 0, 1), Limit: 101}),
		list(st, "list of a small partner", ports.ReportFilter{User: "p5", Limit: 101}),
		list(st, "list of a small partner after a cursor", ports.ReportFilter{User: "p5", After: after(2499), Limit: 101}),
		list(st, "list a day of a small partner", ports.ReportFilter{User: "p5", From: day, To: day.AddDate(0, 0, 1), Limit: 101}),
	} {
		t.Run(tt.name, func(t *testing.T) {
			plan, full := explain(t, db, driver, tt.query, tt.args)
			t.Logf("%s\n%s\n%s", tt.name, tt.query, plan)
			if full != "" {
				t.Errorf("%s reads without an index: %s\n%s", tt.name, full, plan)
			}
			// SQLite's temp B-tree and MariaDB's filesort are a sort of
			// every row the range holds.
			if strings.Contains(plan, "TEMP B-TREE") || strings.Contains(plan, "filesort") {
				t.Errorf("%s sorts its rows:\n%s", tt.name, plan)
			}
		})
	}
}

func list(st *gormstore.Store, name string, f ports.ReportFilter) struct {
	name  string
	query string
	args  []any
} {
	q, args := gormstore.ListQuery(st, f)
	return struct {
		name  string
		query string
		args  []any
	}{name, q, args}
}

// seedPlanRows inserts planRows rows: partner p0 has every other row, p1
// to p5 share the rest; credit numbers repeat every 3 rows of a partner,
// one row in 4 has no Idempotency-Key; receipt times spread over 30 days.
func seedPlanRows(t *testing.T, db *gorm.DB, base time.Time) {
	t.Helper()
	const batch = 500
	for start := 0; start < planRows; start += batch {
		var values []string
		var args []any
		for i := start; i < start+batch; i++ {
			user := "p0"
			if i%2 == 1 {
				user = fmt.Sprintf("p%d", 1+i%5)
			}
			var key any = fmt.Sprintf("key-%05d", i/2)
			if i%4 == 3 {
				key = nil
			}
			at := base.Add(time.Duration(i) * (30 * 24 * time.Hour / planRows))
			values = append(values, "(?, ?, ?, ?, ?)")
			args = append(args, at, user, fmt.Sprintf("CR-%05d", i/6), key, fmt.Sprintf("%064d", i))
		}
		stmt := "INSERT INTO " + gormstore.StagingTable + " (received_at, partner_user, numero_credito, idempotency_key, payload_sha256) VALUES " +
			strings.Join(values, ", ")
		if err := db.Exec(stmt, args...).Error; err != nil {
			t.Fatal(err)
		}
	}
}

// explain returns the plan of query as text, and the first step of it
// that reads the staging table without an index ("" when none does).
func explain(t *testing.T, db *gorm.DB, driver, query string, args []any) (string, string) {
	t.Helper()
	if driver == gormstore.SQLite {
		var steps []struct {
			ID, Parent, Notused int
			Detail              string
		}
		if err := db.Raw("EXPLAIN QUERY PLAN "+query, args...).Scan(&steps).Error; err != nil {
			t.Fatal(err)
		}
		var plan []string
		full := ""
		for _, s := range steps {
			plan = append(plan, s.Detail)
			// SEARCH … USING [COVERING] INDEX / INTEGER PRIMARY KEY reads a
			// range of an index; SCAN reads all of the table or index.
			if strings.Contains(s.Detail, gormstore.StagingTable) && !strings.HasPrefix(s.Detail, "SEARCH") && full == "" {
				full = s.Detail
			}
		}
		if len(plan) == 0 {
			t.Fatal("no plan")
		}
		return strings.Join(plan, "\n"), full
	}
	rows, err := db.Raw("EXPLAIN "+query, args...).Rows()
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var plan []string
	full := ""
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		step := map[string]string{}
		var line []string
		for i, c := range cols {
			v := "NULL"
			switch x := vals[i].(type) {
			case nil:
			case []byte:
				v = string(x)
			default:
				v = fmt.Sprint(x)
			}
			step[c] = v
			line = append(line, c+"="+v)
		}
		plan = append(plan, strings.Join(line, " "))
		// type ALL reads the whole table, index the whole of an index.
		if step["table"] == gormstore.StagingTable && (step["type"] == "ALL" || step["type"] == "index" || step["key"] == "NULL") && full == "" {
			full = strings.Join(line, " ")
		}
	}
	if len(plan) == 0 {
		t.Fatal("no plan")
	}
	return strings.Join(plan, "\n"), full
}
