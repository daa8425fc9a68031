package gormstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"

	"github.com/lender/disbursementd/domain"
)

type idempotencyRow struct {
	ID            int64
	PartnerUser   string
	KeyHash       string
	PayloadSHA256 string `gorm:"column:payload_sha256"`
	State         string
	Nonce         string
	ReportID      *int64
	FileName      *string
	CreatedAt     time.Time
	ExpiresAt     time.Time
}

func (idempotencyRow) TableName() string { return "idempotency_keys" }

func (r idempotencyRow) toDomain() domain.IdempotencyRecord {
	rec := domain.IdempotencyRecord{User: r.PartnerUser, KeyHash: r.KeyHash, PayloadSHA256: r.PayloadSHA256,
		State: domain.KeyState(r.State), Nonce: r.Nonce, CreatedAt: r.CreatedAt.UTC(), ExpiresAt: r.ExpiresAt.UTC()}
	if r.ReportID != nil {
		rec.ReportID = *r.ReportID
	}
	if r.FileName != nil {
		rec.FileName = *r.FileName
	}
	return rec
}

// keyRow is the row of rec in the given state.
func keyRow(rec domain.IdempotencyRecord, state domain.KeyState, reportID *int64) idempotencyRow {
	return idempotencyRow{PartnerUser: rec.User, KeyHash: rec.KeyHash, PayloadSHA256: rec.PayloadSHA256, State: string(state),
		Nonce: rec.Nonce, ReportID: reportID, CreatedAt: rec.CreatedAt.UTC(), ExpiresAt: rec.ExpiresAt.UTC()}
}

// conflict turns a failed insert of rec's record into the callers' answer:
// on the unique key, the existing record and ErrConflict; else the error.
func (s *Store) conflict(ctx context.Context, rec domain.IdempotencyRecord, op string, err error) (domain.IdempotencyRecord, error) {
	if !isDuplicate(err) {
		return domain.IdempotencyRecord{}, fmt.Errorf("%s: %w", op, err)
	}
	existing, gerr := s.GetKey(ctx, rec.User, rec.KeyHash)
	if errors.Is(gerr, domain.ErrNotFound) {
		// Released between our insert and our read: report an expired
		// record so the caller tries again.
		return domain.IdempotencyRecord{State: domain.KeyPending}, fmt.Errorf("%s: %w", op, domain.ErrConflict)
	}
	if gerr != nil {
		return domain.IdempotencyRecord{}, gerr
	}
	return existing, fmt.Errorf("%s: %w", op, domain.ErrConflict)
}

// GetKey returns a record or domain.ErrNotFound.
func (s *Store) GetKey(ctx context.Context, user, keyHash string) (domain.IdempotencyRecord, error) {
	var row idempotencyRow
	err := s.db.WithContext(ctx).Where("partner_user = ? AND key_hash = ?", user, keyHash).Take(&row).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return domain.IdempotencyRecord{}, domain.ErrNotFound
	}
	if err != nil {
		return domain.IdempotencyRecord{}, fmt.Errorf("get idempotency key: %w", err)
	}
	return row.toDomain(), nil
}

// DeleteKey removes the record if it is still rec, state included.
func (s *Store) DeleteKey(ctx context.Context, rec domain.IdempotencyRecord) error {
	err := s.db.WithContext(ctx).Where("partner_user = ? AND key_hash = ? AND nonce = ? AND state = ?", rec.User, rec.KeyHash, rec.Nonce, string(rec.State)).
		Delete(&idempotencyRow{}).Error
	if err != nil {
		return fmt.Errorf("delete idempotency key: %w", err)
	}
	return nil
}

// StagingInsert returns the INSERT statement of a staging row and its
// arguments, for tools that measure the database without the service.
func (s *Store) StagingInsert(r domain.StagedReport) (string, []any) {
	names, args := s.rowValues(r)
	return fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)", s.staging, strings.Join(names, ", "),
		strings.TrimSuffix(strings.Repeat("?, ", len(names)), ", ")), args
}

// StoreReport inserts the row and its done idempotency record in one
// transaction; the unique key turns a duplicate into ErrConflict with the
// existing record (on MySQL a concurrent duplicate waits for the first
// transaction to end).
func (s *Store) StoreReport(ctx context.Context, r domain.StagedReport, rec domain.IdempotencyRecord) (int64, domain.IdempotencyRecord, error) {
	var id int64
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) (err error) {
		if id, err = s.insertStaging(ctx, tx, r); err != nil {
			return err
		}
		row := keyRow(rec, domain.KeyDone, &id)
		if rec.FileName != "" {
			row.FileName = &rec.FileName
		}
		return tx.Create(&row).Error
	})
	if err != nil {
		existing, err := s.conflict(ctx, rec, "store report", err)
		return 0, existing, err
	}
	return id, domain.IdempotencyRecord{}, nil
}

// insertStaging inserts the staging row in tx and returns its id, through
// the connection itself for the driver's LastInsertId (no second query).
func (s *Store) insertStaging(ctx context.Context, tx *gorm.DB, r domain.StagedReport) (int64, error) {
	insert, args := s.StagingInsert(r)
	res, err := tx.Statement.ConnPool.ExecContext(ctx, insert, args...)
	if err != nil {
		return 0, fmt.Errorf("insert staging row: %w", err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, fmt.Errorf("read staging id: %w", err)
	}
	return id, nil
}

// rowValues lists the staging columns and their values: the metadata and
// one value per catalogue field (NULL when absent).
func (s *Store) rowValues(r domain.StagedReport) ([]string, []any) {
	names := []string{"received_at", "partner_user", "partner_nit", "file_name", "file_size", "file_sha256",
		"request_id", "idempotency_key", "payload_sha256"}
	args := []any{r.ReceivedAt.UTC(), r.PartnerUser, nullStr(r.PartnerNIT), nullStr(r.FileName), nullInt(r.FileSize),
		nullStr(r.FileSHA256), nullStr(r.RequestID), nullStr(r.IdempotencyKey), r.PayloadSHA256}
	for _, c := range s.columns {
		names = append(names, c.name)
		v, ok := r.Report.Values[c.name]
		if !ok {
			args = append(args, nil)
			continue
		}
		args = append(args, dbValue(c.field.Type, v))
	}
	return names, args
}

func dbValue(t domain.FieldType, v domain.Value) any {
	switch t {
	case domain.TypeMoney, domain.TypeRate:
		return v.Dec.String()
	case domain.TypeDate:
		return v.Date.Format("2006-01-02")
	case domain.TypeInteger:
		return v.Int
	case domain.TypeBoolean:
		if v.Bool {
			return 1
		}
		return 0
	}
	return v.Str
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

// ReportRow reads a staging row back as text, column by column (NULL
// columns are absent). Dates read as YYYY-MM-DD and decimals as written,
// whatever the driver, so tests and tools compare one form.
func (s *Store) ReportRow(ctx context.Context, id int64) (map[string]string, error) {
	rows, err := s.db.WithContext(ctx).Raw(fmt.Sprintf("SELECT * FROM %s WHERE id = ?", s.staging), id).Rows()
	if err != nil {
		return nil, fmt.Errorf("read staging row: %w", err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	if !rows.Next() {
		return nil, fmt.Errorf("staging row %d: %w", id, domain.ErrNotFound)
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return nil, err
	}
	out := map[string]string{}
	for i, c := range cols {
		switch v := vals[i].(type) {
		case nil:
		case time.Time:
			if f, ok := s.cat.ByInternal(c); ok && f.Type == domain.TypeDate {
				out[c] = v.Format("2006-01-02")
			} else {
				out[c] = v.UTC().Format(time.RFC3339Nano)
			}
		case []byte:
			out[c] = string(v)
		default:
			out[c] = fmt.Sprint(v)
		}
	}
	return out, rows.Err()
}

// CountReports counts the staging rows (for tests and tools).
func (s *Store) CountReports(ctx context.Context) (int64, error) {
	var n int64
	err := s.db.WithContext(ctx).Table(s.staging).Count(&n).Error
	return n, err
}

// NamedFiles returns which of names a staging row names.
func (s *Store) NamedFiles(ctx context.Context, names []string) (map[string]bool, error) {
	var found []string
	if err := s.db.WithContext(ctx).Table(s.staging).Where("file_name IN ?", names).Pluck("file_name", &found).Error; err != nil {
		return nil, fmt.Errorf("named files: %w", err)
	}
	out := make(map[string]bool, len(found))
	for _, n := range found {
		out[n] = true
	}
	return out, nil
}

// FileRows returns rows that name a file, by id.
func (s *Store) FileRows(ctx context.Context, afterID int64, since time.Time, limit int) ([]domain.FileRow, error) {
	var rows []struct {
		ID         int64
		FileName   string
		ReceivedAt time.Time
	}
	err := s.db.WithContext(ctx).Table(s.staging).Select("id, file_name, received_at").
		Where("id > ? AND received_at >= ? AND file_name IS NOT NULL", afterID, since.UTC()).Order("id").Limit(limit).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("file rows: %w", err)
	}
	out := make([]domain.FileRow, len(rows))
	for i, r := range rows {
		out[i] = domain.FileRow{ID: r.ID, FileName: r.FileName, ReceivedAt: r.ReceivedAt.UTC()}
	}
	return out, nil
}

// PurgeKeys deletes stale pending claims and expired records, at most
// limit; without apply it counts them all.
func (s *Store) PurgeKeys(ctx context.Context, pendingBefore, expiredBefore time.Time, limit int, apply bool) (int64, int64, error) {
	db := s.db.WithContext(ctx)
	pendingQ := db.Model(&idempotencyRow{}).Where("state = ? AND created_at < ?", string(domain.KeyPending), pendingBefore.UTC())
	expiredQ := db.Model(&idempotencyRow{}).Where("state <> ? AND expires_at < ?", string(domain.KeyPending), expiredBefore.UTC())
	if !apply {
		var p, e int64
		if err := pendingQ.Count(&p).Error; err != nil {
			return 0, 0, fmt.Errorf("count pending keys: %w", err)
		}
		if err := expiredQ.Count(&e).Error; err != nil {
			return 0, 0, fmt.Errorf("count expired keys: %w", err)
		}
		return p, e, nil
	}
	del := func(q *gorm.DB) (int64, error) {
		var ids []int64
		if err := q.Limit(limit).Pluck("id", &ids).Error; err != nil || len(ids) == 0 {
			return 0, err
		}
		res := db.Where("id IN ?", ids).Delete(&idempotencyRow{})
		return res.RowsAffected, res.Error
	}
	p, err := del(pendingQ)
	if err != nil {
		return 0, 0, fmt.Errorf("delete pending keys: %w", err)
	}
	e, err := del(expiredQ)
	if err != nil {
		return p, 0, fmt.Errorf("delete expired keys: %w", err)
	}
	return p, e, nil
}
