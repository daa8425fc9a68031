package gormstore_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/test/storetest"
)

// planRows is how many staging rows the plans are asked on: 6 partners,
// one of them with half the rows.
const planRows = 6000

// planBase is the receipt time of the first seeded row.
var planBase = time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)

// planStore opens a migrated store of driver's (a fresh SQLite file or
// MySQL database), seeds planRows rows (seedPlanRows), runs seed's
// statements (nil for none), and gathers the planner's statistics of the
// staging table and tables. It returns the store and a raw handle on its
// database, closed when the test ends.
func planStore(t *testing.T, driver string, seed func(*gorm.DB), tables ...string) (*gormstore.Store, *gorm.DB) {
	t.Helper()
	dsn := storetest.FreshDSN(t, driver)
	st := storetest.MustOpen(t, driver, dsn, gormstore.Options{})
	db, err := storetest.OpenDB(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { storetest.CloseDB(db) })
	seedPlanRows(t, db, planBase)
	if seed != nil {
		seed(db)
	}
	analyze := "ANALYZE"
	if driver == gormstore.MySQL {
		analyze = "ANALYZE TABLE " + strings.Join(append([]string{gormstore.StagingTable}, tables...), ", ") + " PERSISTENT FOR ALL"
	}
	if err := db.Exec(analyze).Error; err != nil {
		t.Fatal(err)
	}
	return st, db
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

// primaryKey, as a planCase's index, is the table's primary key.
const primaryKey = "PRIMARY"

// planCase is a statement whose plan planChecks holds: it reads the
// staging table through an index only, sorts nothing (unless mayHaveSort),
// and, when index is named, reads through that index.
type planCase struct {
	name, query string
	args        []any
	index       string // "" for any index, primaryKey for the primary key
	mayHaveSort bool
}

// checkPlans runs a subtest a case, logging each plan (go test -v).
func checkPlans(t *testing.T, db *gorm.DB, driver string, cases []planCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			plan, full := explain(t, db, driver, tt.query, tt.args)
			t.Logf("%s\n%s\n%s", tt.name, tt.query, plan)
			if full != "" {
				t.Errorf("reads without an index: %s\n%s", full, plan)
			}
			// SQLite's temp B-tree and MariaDB's filesort are a sort of
			// every row the range holds.
			if !tt.mayHaveSort && (strings.Contains(plan, "TEMP B-TREE") || strings.Contains(plan, "filesort")) {
				t.Errorf("sorts its rows:\n%s", plan)
			}
			want := map[string]string{gormstore.SQLite: "INDEX " + tt.index + " (", gormstore.MySQL: "key=" + tt.index + " "}[driver]
			if tt.index == primaryKey {
				want = map[string]string{gormstore.SQLite: "USING INTEGER PRIMARY KEY", gormstore.MySQL: "key=PRIMARY "}[driver]
			}
			if tt.index != "" && !strings.Contains(plan, want) {
				t.Errorf("does not read through %q:\n%s", want, plan)
			}
		})
	}
}

// explain returns the plan of query as text, and the first step of it
// that reads the staging table without an index ("" when none does).
func explain(t *testing.T, db *gorm.DB, driver, query string, args []any) (string, string) {
	t.Helper()
	steps := planSteps(t, db, driver, query, args)
	if len(steps) == 0 {
		t.Fatal("no plan")
	}
	var plan []string
	full := ""
	for _, s := range steps {
		plan = append(plan, s.line)
		if full != "" {
			continue
		}
		if driver == gormstore.SQLite {
			// SEARCH … USING [COVERING] INDEX / INTEGER PRIMARY KEY reads a
			// range of an index; SCAN reads all of the table or index.
			if strings.Contains(s.line, gormstore.StagingTable) && !strings.HasPrefix(s.line, "SEARCH") {
				full = s.line
			}
			continue
		}
		// type ALL reads the whole table, index the whole of an index.
		if s.cols["table"] == gormstore.StagingTable && (s.cols["type"] == "ALL" || s.cols["type"] == "index" || s.cols["key"] == "NULL") {
			full = s.line
		}
	}
	return strings.Join(plan, "\n"), full
}

// planStep is a step of a plan: SQLite's detail, or a MariaDB EXPLAIN
// row as "column=value" pairs in line and by column in cols.
type planStep struct {
	line string
	cols map[string]string
}

// planSteps is query's plan, a step each.
func planSteps(t *testing.T, db *gorm.DB, driver, query string, args []any) []planStep {
	t.Helper()
	if driver == gormstore.SQLite {
		var steps []struct {
			ID, Parent, Notused int
			Detail              string
		}
		if err := db.Raw("EXPLAIN QUERY PLAN "+query, args...).Scan(&steps).Error; err != nil {
			t.Fatal(err)
		}
		out := make([]planStep, len(steps))
		for i, s := range steps {
			out[i] = planStep{line: s.Detail}
		}
		return out
	}
	rows, err := db.Raw("EXPLAIN "+query, args...).Rows()
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []planStep
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		step := planStep{cols: map[string]string{}}
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
			step.cols[c] = v
			line = append(line, c+"="+v)
		}
		step.line = strings.Join(line, " ")
		out = append(out, step)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
