package gormstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"
	"gorm.io/gorm"
)

type schemaMigration struct {
	Version   int `gorm:"primaryKey;autoIncrement:false"`
	Name      string
	AppliedAt time.Time
}

func (schemaMigration) TableName() string { return "schema_migrations" }

// ErrOutdatedSchema says the database needs `disbursementd migrate`.
var ErrOutdatedSchema = errors.New("database schema is outdated: run `disbursementd migrate` (or set store.auto_migrate: true)")

func (s *Store) ensureMigrationTable(ctx context.Context) error {
	ddl := "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER NOT NULL PRIMARY KEY, name VARCHAR(200) NOT NULL, applied_at DATETIME NOT NULL)"
	if s.driver == MySQL {
		ddl += " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4"
	}
	if err := s.write.orm.WithContext(ctx).Exec(ddl).Error; err != nil {
		return fmt.Errorf("create schema_migrations: %w", err)
	}
	return nil
}

// Pending lists the versions not yet applied.
func (s *Store) Pending(ctx context.Context) ([]int, error) {
	if err := s.ensureMigrationTable(ctx); err != nil {
		return nil, err
	}
	var applied []int
	if err := s.write.orm.WithContext(ctx).Model(&schemaMigration{}).Pluck("version", &applied).Error; err != nil {
		return nil, fmt.Errorf("read schema_migrations: %w", err)
	}
	done := map[int]bool{}
	for _, v := range applied {
		done[v] = true
	}
	var out []int
	for _, m := range s.migrations {
		if !done[m.Version] {
			out = append(out, m.Version)
		}
	}
	return out, nil
}

// CheckSchema returns ErrOutdatedSchema when migrations are pending.
func (s *Store) CheckSchema(ctx context.Context) error {
	p, err := s.Pending(ctx)
	if err != nil {
		return err
	}
	if len(p) > 0 {
		return fmt.Errorf("%w (pending versions %v)", ErrOutdatedSchema, p)
	}
	return s.checkColumns(ctx)
}

// checkColumns fails when a field of the catalogue has no staging column:
// a line added to fields.csv without the migration that adds its column
// (migrations/README.md). Without it every report would fail to insert.
func (s *Store) checkColumns(ctx context.Context) error {
	types, err := s.write.orm.WithContext(ctx).Migrator().ColumnTypes(StagingTable)
	if err != nil {
		return fmt.Errorf("read the staging table's columns: %w", err)
	}
	have := make(map[string]bool, len(types))
	for _, ct := range types {
		have[strings.ToLower(ct.Name())] = true
	}
	var missing []string
	for _, c := range s.columns {
		if !have[c.name] {
			missing = append(missing, c.name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("the staging table has no column for fields %v of fields.csv: a new field needs a migration that adds its column (adapters/gormstore/migrations/README.md)", missing)
	}
	return nil
}

// Migrate applies the pending migrations in order and returns the
// versions applied. On MySQL a named lock keeps two instances from
// migrating at once; on SQLite each migration is one transaction.
func (s *Store) Migrate(ctx context.Context) ([]int, error) {
	db := s.write.orm.WithContext(ctx)
	if s.driver == MySQL {
		// GET_LOCK holds per connection: pin one for the whole run.
		return s.migrateLocked(ctx)
	}
	return s.migrateOn(ctx, db)
}

func (s *Store) migrateLocked(ctx context.Context) ([]int, error) {
	var out []int
	err := s.write.orm.WithContext(ctx).Connection(func(conn *gorm.DB) error {
		var got int
		conn = conn.Session(&gorm.Session{NewDB: true})
		if err := conn.Raw("SELECT GET_LOCK('disbursementd_migrate', 60)").Scan(&got).Error; err != nil || got != 1 {
			return fmt.Errorf("take migration lock: %v (got %d)", err, got)
		}
		defer conn.Exec("SELECT RELEASE_LOCK('disbursementd_migrate')")
		var err error
		out, err = s.migrateOn(ctx, conn)
		return err
	})
	return out, err
}

func (s *Store) migrateOn(ctx context.Context, db *gorm.DB) ([]int, error) {
	pending, err := s.Pending(ctx)
	if err != nil {
		return nil, err
	}
	var applied []int
	for _, m := range s.migrations {
		if !contains(pending, m.Version) {
			continue
		}
		run := func(tx *gorm.DB) error {
			tx = tx.Session(&gorm.Session{NewDB: true})
			for _, stmt := range m.stmts(s.driver) {
				if err := tx.Exec(stmt).Error; err != nil && !s.alreadyDone(err) {
					return fmt.Errorf("migration %d (%s): %w", m.Version, m.Name, err)
				}
			}
			if s.driver == MySQL {
				return s.recordMigration(ctx, m)
			}
			return tx.Create(&schemaMigration{Version: m.Version, Name: m.Name, AppliedAt: s.clock.Now().UTC()}).Error
		}
		if s.driver == SQLite {
			err = db.Transaction(run)
		} else {
			err = run(db) // MySQL DDL commits implicitly
		}
		if err != nil {
			return applied, err
		}
		applied = append(applied, m.Version)
	}
	return applied, s.checkColumns(ctx)
}

// recordMigration notes on MySQL that m is applied. GET_LOCK holds per
// server, so on a Galera cluster two instances on two nodes may both run
// a migration (its DDL is ordered cluster-wide, and the second's finds
// its work done) and both record it: the later finds the row there
// (1062), or, when the two INSERTs were in flight together, loses
// certification (1213) and runs again through inTx, to find the row
// there. Either way the other instance recorded it: done.
func (s *Store) recordMigration(ctx context.Context, m Migration) error {
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
			m.Version, m.Name, s.clock.Now().UTC())
		return err
	})
	if err != nil && isDuplicate(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("record migration %d (%s): %w", m.Version, m.Name, err)
	}
	return nil
}

func contains(list []int, v int) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// alreadyDone reports whether a migration statement failed only because
// what it makes is there already. MySQL commits each DDL statement on its
// own, so a migration stopped half-way (a lost connection, a killed
// process) leaves some of its tables and indexes behind; the next run
// takes them as done (and what it dropped as gone) instead of failing
// on them forever. (MySQL 8 has no
// CREATE INDEX IF NOT EXISTS.) On SQLite a migration is one transaction.
func (s *Store) alreadyDone(err error) bool {
	var me *mysqldrv.MySQLError
	if s.driver != MySQL || !errors.As(err, &me) {
		return false
	}
	switch me.Number {
	case 1050, 1060, 1061: // table, column, index exists
		return true
	case 1091: // DROP of an index (or column) that is gone already
		return true
	}
	return false
}
