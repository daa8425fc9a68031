package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/domain"
)

// RunPoolBoundMySQL sends 200 concurrent reports (each looking its key up
// first, as a report with a file does) through a store opened with the
// default options, as a user the server allows only what the store's
// pools hold at most together (43 at the defaults: 32 for reads and
// writes, 8 for look-ups, 3 for the group commit's 2 writers): the pools' bounds keep
// every request waiting for a connection instead of failing with "Too
// many connections".
func RunPoolBoundMySQL(t *testing.T) {
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	dsn := MustCreateDatabase(t)
	cfg, err := mysqldrv.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	MustOpen(t, gormstore.MySQL, dsn, gormstore.Options{}) // migrate as root
	admin := mustDB(t, gormstore.MySQL, dsn)
	user := "pool_" + cfg.DBName[len(cfg.DBName)-8:]
	def := Options(gormstore.MySQL)
	conns := def.MaxOpenConns + def.LookupConns + def.BatchWriters + 1
	for _, q := range []string{
		fmt.Sprintf("CREATE USER '%s'@'%%' IDENTIFIED BY 'pool-test' WITH MAX_USER_CONNECTIONS %d", user, conns),
		fmt.Sprintf("GRANT ALL ON %s.* TO '%s'@'%%'", cfg.DBName, user),
	} {
		if err := admin.Exec(q).Error; err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { admin.Exec(fmt.Sprintf("DROP USER IF EXISTS '%s'@'%%'", user)) })
	limited := *cfg
	limited.User, limited.Passwd = user, "pool-test"
	st := MustOpen(t, gormstore.MySQL, limited.FormatDSN(), gormstore.Options{})

	const n = 200
	errs := storeAll(n, func(i int) error {
		rec := record("acme", fmt.Sprintf("pool-%d", i), now)
		if _, err := st.GetKey(ctx, rec.User, rec.KeyHash); !errors.Is(err, domain.ErrNotFound) {
			return fmt.Errorf("GetKey: %w", err)
		}
		_, _, err := st.StoreReport(ctx, staged(t, "acme", fmt.Sprintf("CR-POOL-%d", i), now), rec)
		return err
	})
	for i, err := range errs {
		if err != nil {
			t.Fatalf("report %d: %v", i, err)
		}
	}
	var rows int64
	if err := admin.Table(gormstore.StagingTable).Count(&rows).Error; err != nil || rows != n {
		t.Fatalf("%d rows (%v), want %d", rows, err, n)
	}
}
