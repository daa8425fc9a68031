package gormstore

import (
	"fmt"
	"strings"

	"github.com/lender/disbursementd/domain"
)

// statements are the group commit's SQL, built once per store.
type statements struct {
	staging       string // INSERT of one staging row
	key           string // INSERT of one idempotency record that skips a taken key
	undo          string // DELETE of a staging row whose key was taken
	reserve       string // INSERT of the reservation of a stored report's file name
	event         string // INSERT of a stored report's report.received event
	readKey       string // the record of user and key hash
	readKeyLocked string // the same, waiting for a transaction that holds it (MySQL)
}

// stagingNames lists the staging columns a report fills, in the order of
// stagingArgs: the metadata, then one column per catalogue field.
func stagingNames(cols []column) []string {
	names := []string{"received_at", "partner_user", "partner_nit", "file_name", "file_size", "file_sha256",
		"request_id", "idempotency_key", "payload_sha256"}
	for _, c := range cols {
		names = append(names, c.name)
	}
	return names
}

const keyNames = "partner_user, key_hash, payload_sha256, state, nonce, report_id, file_name, created_at, expires_at"

func buildStatements(driver string, cols []column) statements {
	names := stagingNames(cols)
	st := statements{
		staging: fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)", StagingTable, strings.Join(names, ", "), placeholders(len(names))),
		undo:    fmt.Sprintf("DELETE FROM %s WHERE id = ?", StagingTable),
		// A plain INSERT: a tombstone under the name (the sweep took the
		// file) makes it fail, and with it the report's row.
		reserve: "INSERT INTO " + filesTable + " (file_name, state, report_id, created_at, checked) VALUES (?, '" + fileReserved + "', ?, ?, 0)",
		// The event of a report stored: created at its receipt time, and
		// dispatched at once when nobody listens for it (listeners.go):
		// on MySQL the batch says so (the last argument); on SQLite the
		// statement asks the partner's count itself (the last argument is
		// the partner again).
		event: "INSERT INTO " + eventsTable + " (partner_user, report_id, type, created_at, dispatched) VALUES (?, ?, '" +
			string(domain.EventReceived) + "', ?, ?)",
		readKey: "SELECT " + keyNames + " FROM idempotency_keys WHERE partner_user = ? AND key_hash = ?",
	}
	key := "INSERT INTO idempotency_keys (" + keyNames + ") VALUES (" + placeholders(9) + ")"
	if driver == MySQL {
		// A taken key changes nothing and reports 0 affected rows. The
		// read that settles a lost commit is a locking read: it waits for
		// a transaction still holding the record, so it never reads
		// "absent" while that commit may yet land.
		st.key = key + " ON DUPLICATE KEY UPDATE id = id"
		st.readKeyLocked = st.readKey + " LOCK IN SHARE MODE"
	} else {
		st.event = "INSERT INTO " + eventsTable + " (partner_user, report_id, type, created_at, dispatched) SELECT ?, ?, '" +
			string(domain.EventReceived) + "', ?, NOT EXISTS (SELECT 1 FROM " + countsTable + " WHERE partner_user = ? AND endpoints > 0)"
		st.key = key + " ON CONFLICT(partner_user, key_hash) DO NOTHING"
		st.readKeyLocked = st.readKey
	}
	return st
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// stagingArgs returns the values of stagingNames for r (NULL when absent).
func stagingArgs(cols []column, r domain.StagedReport) []any {
	return appendStagingArgs(make([]any, 0, 9+len(cols)), cols, r)
}

// appendStagingArgs appends stagingArgs's values to args: a batch reuses
// one slice for its reports, the multi-row statement appends them all.
func appendStagingArgs(args []any, cols []column, r domain.StagedReport) []any {
	args = append(args, r.ReceivedAt.UTC(), r.PartnerUser, nullStr(r.PartnerNIT), nullStr(r.FileName), nullInt(r.FileSize),
		nullStr(r.FileSHA256), nullStr(r.RequestID), nullStr(r.IdempotencyKey), r.PayloadSHA256)
	// The fields stored as text are written into one buffer, then taken
	// as substrings of one string: one allocation for all their text
	// rather than one or more a field. ends[i] is where column i's text
	// ends in it; absent for a field the report does not have, number for
	// one stored as a number.
	const absent, number = -1, -2
	var stack [4096]byte
	text := stack[:0]
	var endsStack [128]int
	ends := endsStack[:0]
	for _, c := range cols {
		v, ok := r.Report.At(c.index)
		switch {
		case !ok:
			ends = append(ends, absent)
		case domain.StoredKindOf(c.field.Type) == domain.StoredText:
			text = domain.AppendStored(text, &c.field, v)
			ends = append(ends, len(text))
		default:
			ends = append(ends, number)
		}
	}
	all, start := string(text), 0
	for i, c := range cols {
		switch end := ends[i]; {
		case end == absent:
			args = append(args, nil)
		case end == number:
			v, _ := r.Report.At(c.index)
			args = append(args, domain.StoredValue(c.field, v))
		default:
			args = append(args, all[start:end])
			start = end
		}
	}
	return args
}

// keyArgs returns the values of keyNames for rec, done, naming report id.
func keyArgs(rec domain.IdempotencyRecord, id int64) []any {
	return []any{rec.User, rec.KeyHash, rec.PayloadSHA256, string(domain.KeyDone), rec.Nonce, id,
		nullStr(rec.FileName), rec.CreatedAt.UTC(), rec.ExpiresAt.UTC()}
}

func nullStr(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func nullInt(n int64) any {
	if n == 0 {
		return nil
	}
	return n
}

// StagingInsert returns the group commit's INSERT of one staging row and
// its arguments for r: the statement the store runs, for tools that
// measure or fill the database without the service (the load tool's
// storage ceiling, test fixtures). The service never calls it; it is
// exported because those tools are other packages (test/load,
// test/storetest), which an export_test.go seam cannot reach.
func StagingInsert(driver string, cat *domain.Catalogue, r domain.StagedReport) (string, []any) {
	cols := columnsFor(cat)
	return buildStatements(driver, cols).staging, stagingArgs(cols, r)
}
