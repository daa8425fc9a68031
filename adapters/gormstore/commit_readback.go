package gormstore

import (
	"context"
	"database/sql"
	"fmt"
)

// rowTag is what tells a staging row from another when the rows of a
// multi-row INSERT are read back by their ids: a report's request id
// (random per HTTP request), payload hash, key and file name, and its
// partner.
type rowTag struct {
	user, request, payload, key, file string
}

func tagOf(q *request) rowTag {
	r := q.r
	return rowTag{r.PartnerUser, r.RequestID, r.PayloadSHA256, r.IdempotencyKey, r.FileName}
}

// readBack reads chunk's staging rows by ids, the ids insertChunk
// computed for them, inside tx (which sees its own rows), and returns
// errPerReport unless each id holds its own report's row. Two reports
// of a chunk that cannot be told apart also send the batch to the
// per-report path: their ids could be crossed unseen.
func (s *Store) readBack(ctx context.Context, tx *sql.Tx, chunk []*request, ids []int64) error {
	want := make(map[int64]rowTag, len(ids))
	seen := make(map[rowTag]struct{}, len(ids))
	args := make([]any, len(ids))
	for i, q := range chunk {
		tag := tagOf(q)
		if _, twice := seen[tag]; twice {
			return fmt.Errorf("read back staging rows: two reports alike: %w", errPerReport)
		}
		seen[tag] = struct{}{}
		want[ids[i]] = tag
		args[i] = ids[i]
	}
	st, err := s.write.stmts.get(ctx, readBackQuery(len(ids)))
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
		var id int64
		var got rowTag
		if err := rows.Scan(&id, &got.user, &got.request, &got.payload, &got.key, &got.file); err != nil {
			return fmt.Errorf("read back staging rows: %w", err)
		}
		if tag, ok := want[id]; !ok || tag != got {
			s.rowMisses.Add(1)
			return fmt.Errorf("read back staging rows: id %d holds another row: %w", id, errPerReport)
		}
		found++
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read back staging rows: %w", err)
	}
	if found != len(ids) {
		s.rowMisses.Add(1)
		return fmt.Errorf("read back staging rows: %d of %d ids hold a row: %w", found, len(ids), errPerReport)
	}
	return nil
}

// readBackQuery selects the rows of n staging ids with what tells them
// apart (rowTag's fields, NULLs as "").
func readBackQuery(n int) string {
	return "SELECT id, partner_user, COALESCE(request_id, ''), payload_sha256, COALESCE(idempotency_key, ''), COALESCE(file_name, '') FROM " +
		StagingTable + " WHERE id IN (" + placeholders(n) + ")"
}
