package storetest

import (
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/lender/disbursementd/adapters/gormstore"
)

// ThrottleDefaults are the database throttle's options in these tests.
var ThrottleDefaults = gormstore.ThrottleOptions{Conns: 4, MaxKeys: 100_000}

// MustThrottle is the database throttle of st (on driver and dsn), closed
// at cleanup; Pass moves every time it stored back by d.
func MustThrottle(tb testing.TB, st *gormstore.Store, driver, dsn string, o gormstore.ThrottleOptions) (*gormstore.Throttle, ThrottleSubject) {
	tb.Helper()
	th, err := gormstore.NewThrottle(st, o)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = th.Close() })
	db := mustDB(tb, driver, dsn)
	return th, ThrottleSubject{LoginThrottle: th, Now: time.Now, Pass: func(d time.Duration) { agePast(tb, db, d) }}
}

// agePast moves every time the throttle stored d into the past, which is
// what d passing looks like to a throttle on the database's clock.
func agePast(tb testing.TB, db *gorm.DB, d time.Duration) {
	tb.Helper()
	if err := db.Exec("UPDATE login_attempts SET at_ns = at_ns - ?, expires_ns = expires_ns - ?", int64(d), int64(d)).Error; err != nil {
		tb.Fatal(err)
	}
	if err := db.Exec("UPDATE login_throttle_keys SET expires_ns = expires_ns - ?", int64(d)).Error; err != nil {
		tb.Fatal(err)
	}
}

// SQLiteThrottle is the database throttle of a fresh SQLite store.
func SQLiteThrottle(tb testing.TB) ThrottleSubject {
	path := SQLitePath(tb)
	_, s := MustThrottle(tb, MustOpen(tb, gormstore.SQLite, path, gormstore.Options{}), gormstore.SQLite, path, ThrottleDefaults)
	return s
}

// SQLiteThrottles are two throttles of two stores on one SQLite file.
func SQLiteThrottles(tb testing.TB) (ThrottleSubject, ThrottleSubject) {
	path := SQLitePath(tb)
	_, a := MustThrottle(tb, MustOpen(tb, gormstore.SQLite, path, gormstore.Options{}), gormstore.SQLite, path, ThrottleDefaults)
	_, b := MustThrottle(tb, MustOpen(tb, gormstore.SQLite, path, gormstore.Options{}), gormstore.SQLite, path, ThrottleDefaults)
	return a, b
}

// MySQLThrottle is the database throttle of a store on a fresh database.
func MySQLThrottle(tb testing.TB) ThrottleSubject {
	dsn := MustCreateDatabase(tb)
	_, s := MustThrottle(tb, MustOpen(tb, gormstore.MySQL, dsn, gormstore.Options{}), gormstore.MySQL, dsn, ThrottleDefaults)
	return s
}

// MySQLThrottles are two throttles of two stores on one MySQL database.
func MySQLThrottles(tb testing.TB) (ThrottleSubject, ThrottleSubject) {
	dsn := MustCreateDatabase(tb)
	_, a := MustThrottle(tb, MustOpen(tb, gormstore.MySQL, dsn, gormstore.Options{}), gormstore.MySQL, dsn, ThrottleDefaults)
	_, b := MustThrottle(tb, MustOpen(tb, gormstore.MySQL, dsn, gormstore.Options{}), gormstore.MySQL, dsn, ThrottleDefaults)
	return a, b
}
