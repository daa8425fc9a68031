package gormstore_test

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/storetest"
)

// TestCloseStopsEverything: the group-commit writers and the pools end
// with Close, and a report after Close fails at once.
func TestCloseStopsEverything(t *testing.T) {
	before := runtime.NumGoroutine()
	noClock := storetest.WithOptions(gormstore.SQLite, gormstore.Options{BatchWriters: 3})
	noClock.Clock = nil
	if _, err := gormstore.Open(gormstore.SQLite, storetest.SQLitePath(t), noClock, domain.DefaultCatalogue()); err == nil {
		t.Fatal("Open without a clock succeeded")
	}
	st, err := gormstore.Open(gormstore.SQLite, storetest.SQLitePath(t), storetest.WithOptions(gormstore.SQLite, gormstore.Options{BatchWriters: 3}), domain.DefaultCatalogue())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	r := fullReport(t, "CR-CLOSE-1")
	if _, _, err := st.StoreReport(ctx, r, recordT("close-1", r.ReceivedAt)); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, _, err := st.StoreReport(ctx, r, recordT("close-2", r.ReceivedAt))
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || errors.Is(err, domain.ErrOutcomeUnknown) {
			t.Fatalf("StoreReport after Close = %v; want a plain error", err)
		}
	case <-time.After(30 * time.Second): // a wait for a hang, not a speed
		t.Fatal("StoreReport after Close hangs")
	}
	deadline := time.Now().Add(30 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Fatalf("%d goroutines after Close, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}

// TestClockStampsTimes: the store's own timestamps come from the clock
// it is given.
func TestClockStampsTimes(t *testing.T) {
	t.Parallel()
	at := time.Date(2031, 1, 2, 3, 4, 5, 0, time.UTC)
	path := storetest.SQLitePath(t)
	st := storetest.MustOpen(t, gormstore.SQLite, path, gormstore.Options{Clock: fixedClock(at)})
	ctx := context.Background()
	u := domain.User{Name: "acme", NIT: "900123456-8", PasswordHash: "x", Active: true, CreatedAt: at, UpdatedAt: at.Add(-time.Hour)}
	if err := st.CreateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	if err := st.SetActive(ctx, "acme", false); err != nil {
		t.Fatal(err)
	}
	got, err := st.GetUser(ctx, "acme")
	if err != nil || !got.UpdatedAt.Equal(at) {
		t.Fatalf("updated_at = %v, %v; want the clock's %v", got.UpdatedAt, err, at)
	}
	db, err := storetest.OpenDB(gormstore.SQLite, path)
	if err != nil {
		t.Fatal(err)
	}
	defer storetest.CloseDB(db)
	var applied []time.Time
	if err := db.Raw("SELECT applied_at FROM schema_migrations").Scan(&applied).Error; err != nil || len(applied) == 0 {
		t.Fatalf("applied_at: %v, %v", applied, err)
	}
	for _, a := range applied {
		if !a.Equal(at) {
			t.Fatalf("applied_at = %v, want the clock's %v", a, at)
		}
	}
}

type fixedClock time.Time

func (c fixedClock) Now() time.Time { return time.Time(c) }

// TestCompat100Until: a new install has no records of version 1.0.0; after
// an upgrade, the latest expiry of the records made before migration 2 is
// when the service may stop looking reports up the old way. On both stores.
func TestCompat100Until(t *testing.T) {
	t.Parallel()
	for _, driver := range []string{gormstore.SQLite, gormstore.MySQL} {
		t.Run(driver, func(t *testing.T) {
			dsn := storetest.FreshDSN(t, driver)
			st := storetest.MustOpen(t, driver, dsn, gormstore.Options{})
			ctx := context.Background()
			if until, err := st.Compat100Until(ctx); err != nil || !until.IsZero() {
				t.Fatalf("new install: %v, %v; want none", until, err)
			}
			now := time.Now().UTC().Truncate(time.Second)
			r := fullReport(t, "CR-NEW-1")
			if _, _, err := st.StoreReport(ctx, r, recordT("new", now.Add(time.Minute))); err != nil {
				t.Fatal(err)
			}
			// A record from before the upgrade: made an hour before migration 2.
			db, err := storetest.OpenDB(driver, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer storetest.CloseDB(db)
			if err := db.Exec("UPDATE schema_migrations SET applied_at = ? WHERE version = 2", now).Error; err != nil {
				t.Fatal(err)
			}
			old := recordT("old", now.Add(-time.Hour))
			if _, _, err := st.StoreReport(ctx, fullReport(t, "CR-OLD-1"), old); err != nil {
				t.Fatal(err)
			}
			until, err := st.Compat100Until(ctx)
			if err != nil || !until.Equal(old.ExpiresAt) {
				t.Fatalf("after an upgrade: %v, %v; want %v", until, err, old.ExpiresAt)
			}
		})
	}
}

// TestOpenRefusesZeroBounds: the store takes its bounds from the
// configuration and chooses none itself: a bound left at zero is an error
// at Open, not a default.
func TestOpenRefusesZeroBounds(t *testing.T) {
	t.Parallel()
	for name, zero := range map[string]func(*gormstore.Options){
		"MaxOpenConns":    func(o *gormstore.Options) { o.MaxOpenConns = 0 },
		"MaxIdleConns":    func(o *gormstore.Options) { o.MaxIdleConns = 0 },
		"MaxBatch":        func(o *gormstore.Options) { o.MaxBatch = 0 },
		"BatchWriters":    func(o *gormstore.Options) { o.BatchWriters = 0 },
		"ReadbackTimeout": func(o *gormstore.Options) { o.ReadbackTimeout = 0 },
		"BusyTimeout":     func(o *gormstore.Options) { o.BusyTimeout = 0 },
		"Clock":           func(o *gormstore.Options) { o.Clock = nil },
	} {
		o := storetest.Options(gormstore.SQLite)
		zero(&o)
		if st, err := gormstore.Open(gormstore.SQLite, storetest.SQLitePath(t), o, domain.DefaultCatalogue()); err == nil {
			_ = st.Close()
			t.Errorf("Open with %s unset succeeded", name)
		}
	}
	st, err := gormstore.Open(gormstore.SQLite, storetest.SQLitePath(t), storetest.Options(gormstore.SQLite), domain.DefaultCatalogue())
	if err != nil {
		t.Fatalf("Open with the configuration's options: %v", err)
	}
	_ = st.Close()
}
