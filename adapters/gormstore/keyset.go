package gormstore

import (
	"strings"
	"time"

	"github.com/lender/disbursementd/ports"
)

// keyset is a page of staging rows in the one order both look-ups list
// them in, (received_at, id): the partner's (ListReports, ascending) and
// support's (FindReports, descending, newest first). Both read one index
// of the (…, received_at, id) family in its own order (migrations 6 and
// 8) and continue from a ports.ListPosition; support's view only lifts the
// partner scope. It is one place for the order, the cursor and the
// engines' range quirks.
type keyset struct {
	driver, index string
	// conds are the equality filters ("partner_user = ?", …), with args.
	conds    []string
	args     []any
	from, to time.Time          // received at or after from, before to; zero: unbounded
	pos      ports.ListPosition // rows after it (before it when desc); ID 0: none
	desc     bool
	limit    int
}

// query is the SELECT of cols for k, and its arguments: one range of
// k.index read in its order (backwards when desc), so a page reads at
// most limit entries (one more after a cursor: see below) and sorts
// nothing. The index is named, not left to the planner: with statistics
// of a partner that has most of the rows, both SQLite and MariaDB may
// prefer another one and sort.
//
// The bound on the cursor's side is the nearer of the date bound and the
// cursor (a cursor from a page of other filters may lie beyond the
// date). Past a position (t, i) the rows are two adjacent ranges:
// received_at = t with id beyond i, then received_at beyond t. Neither
// engine seeks to (t, i) on a row value: both start at received_at = t
// and read every row of that instant up to the cursor. MariaDB reads
// "received_at > t OR (received_at = t AND id > i)" as the two ranges, in
// order; SQLite turns such an OR into a union that it sorts, so there the
// two ranges are two SELECTs joined by UNION ALL, the first's rows before
// the second's. The entry that ends the first range is read again to
// start the second: limit + 1 entries at most.
func (k keyset) query(cols string) (string, []any) {
	cmp, dir := ">", ""
	if k.desc {
		cmp, dir = "<", " DESC"
	}
	order := "received_at" + dir + ", id" + dir
	cursor := k.pos.ID > 0
	if k.desc {
		cursor = cursor && (k.to.IsZero() || k.pos.ReceivedAt.Before(k.to))
	} else {
		cursor = cursor && !k.pos.ReceivedAt.Before(k.from)
	}
	if !cursor {
		return k.rangeQuery(cols, "", nil, order)
	}
	at := k.pos.ReceivedAt.UTC()
	if k.driver == SQLite {
		same, sameArgs := k.rangeQuery(cols, "received_at = ? AND id "+cmp+" ?", []any{at, k.pos.ID}, "id"+dir)
		beyond, beyondArgs := k.rangeQuery(cols, "received_at "+cmp+" ?", []any{at}, order)
		args := append(append(sameArgs, beyondArgs...), k.limit)
		return "SELECT * FROM (" + same + ") UNION ALL SELECT * FROM (" + beyond + ") LIMIT ?", args
	}
	return k.rangeQuery(cols, "(received_at "+cmp+" ? OR (received_at = ? AND id "+cmp+" ?))", []any{at, at, k.pos.ID}, order)
}

// rangeQuery is one SELECT of query: the equality filters, the cursor's
// bound (with its arguments; "" for none) in place of the date bound on
// its side, the other date bound, in order, at most k.limit rows.
func (k keyset) rangeQuery(cols, cursor string, cursorArgs []any, order string) (string, []any) {
	var b strings.Builder
	b.WriteString("SELECT " + cols + " FROM " + StagingTable + indexHint(k.driver, k.index))
	args := append([]any(nil), k.args...)
	conds := append([]string(nil), k.conds...)
	add := func(cond string, v ...any) {
		conds = append(conds, cond)
		args = append(args, v...)
	}
	if !k.from.IsZero() && (cursor == "" || k.desc) {
		add("received_at >= ?", k.from.UTC())
	}
	if cursor != "" {
		add(cursor, cursorArgs...)
	}
	if !k.to.IsZero() && (cursor == "" || !k.desc) {
		add("received_at < ?", k.to.UTC())
	}
	if len(conds) > 0 {
		b.WriteString(" WHERE " + strings.Join(conds, " AND "))
	}
	b.WriteString(" ORDER BY " + order + " LIMIT ?")
	return b.String(), append(args, k.limit)
}

// indexHint names the index a statement reads through, in driver's words.
func indexHint(driver, index string) string {
	if driver == MySQL {
		return " FORCE INDEX (" + index + ")"
	}
	return " INDEXED BY " + index
}
