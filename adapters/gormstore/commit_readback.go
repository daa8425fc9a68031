package gormstore

import (
	"context"
	"database/sql"
	"fmt"
)

// rowTag is what tells a staging row from another when the rows of a
// multi-row INSERT come back (returned by it, or read back by their
// ids): a report's request id (random per HTTP request), payload hash,
// key and file name, and its partner.
type rowTag struct {
	user, request, payload, key, file string
}

// tagColumns selects a staging row's id and rowTag, NULLs as "" (scanTag).
const tagColumns = "id, partner_user, COALESCE(request_id, ''), payload_sha256, COALESCE(idempotency_key, ''), COALESCE(file_name, '')"

// scanTag reads the id and tag of the row rows is at (tagColumns).
func scanTag(rows *sql.Rows) (id int64, tag rowTag, err error) {
	err = rows.Scan(&id, &tag.user, &tag.request, &tag.payload, &tag.key, &tag.file)
	return id, tag, err
}

func tagOf(q *request) rowTag {
	r := q.r
	return rowTag{r.PartnerUser, r.RequestID, r.PayloadSHA256, r.IdempotencyKey, r.FileName}
}

// distinctTags says whether every report of reqs can be told from the
// others by its rowTag. Two that cannot could have their ids crossed
// unseen, so such a batch is not read back but goes a statement per
// report. (Returned rows come in the order of the INSERT's: two alike
// there would only be checked against each other's twin.)
func distinctTags(reqs []*request) bool {
	seen := make(map[rowTag]struct{}, len(reqs))
	for _, q := range reqs {
		tag := tagOf(q)
		if _, twice := seen[tag]; twice {
			return false
		}
		seen[tag] = struct{}{}
	}
	return true
}

// readBack reads chunk's staging rows by ids, the ids insertChunk
// computed for them, inside tx (which sees its own rows and no other
// transaction's uncommitted ones), and returns errPerReport unless each
// id holds its own report's row (their tags are distinct: distinctTags).
// A miss also keeps the next batches on the per-report path for
// rowsPause.
func (s *Store) readBack(ctx context.Context, tx *sql.Tx, chunk []*request, ids []int64) error {
	want := make(map[int64]rowTag, len(ids))
	args := make([]any, len(ids))
	for i, q := range chunk {
		want[ids[i]] = tagOf(q)
		args[i] = ids[i]
	}
	st, err := s.commit.stmts.get(ctx, readBackQuery(len(ids)))
	if err != nil {
		return err
	}
	s.rowChecks.Add(1)
	rows, err := tx.StmtContext(ctx, st).QueryContext(ctx, args...)
	if err != nil {
		return fmt.Errorf("read back staging rows: %w", err)
	}
	defer rows.Close()
	found := 0
	for rows.Next() {
		id, got, err := scanTag(rows)
		if err != nil {
			return fmt.Errorf("read back staging rows: %w", err)
		}
		if tag, ok := want[id]; !ok || tag != got {
			s.missed()
			return fmt.Errorf("read back staging rows: id %d holds another row: %w", id, errPerReport)
		}
		found++
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read back staging rows: %w", err)
	}
	if found != len(ids) {
		s.missed()
		return fmt.Errorf("read back staging rows: %d of %d ids hold a row: %w", found, len(ids), errPerReport)
	}
	return nil
}

// RowMisses returns how many read-backs of multi-row statements found an
// id holding another row or none (each sent its batch a statement per
// report, and paused the multi-row path for rowsPause).
func (s *Store) RowMisses() int64 { return s.rowMisses.Load() }

// missed counts a read-back that found another row or none, and pauses
// the multi-row path.
func (s *Store) missed() {
	s.rowMisses.Add(1)
	s.pauseRows()
}

// readBackQuery selects the rows of n staging ids with what tells them
// apart (rowTag's fields, NULLs as "").
func readBackQuery(n int) string {
	return "SELECT " + tagColumns + " FROM " + StagingTable + " WHERE id IN (" + placeholders(n) + ")"
}
