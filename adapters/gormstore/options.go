package gormstore

import (
	"errors"
	"fmt"
	"time"

	"github.com/lender/disbursementd/ports"
)

// Options configure the pools, the group commit and the clock. The
// configuration gives every value (config.StoreConfig); Open refuses a
// bound left at zero instead of choosing one.
type Options struct {
	// MaxOpenConns bounds the pool that reads use (store.max_open_conns):
	// on MySQL the one pool, on SQLite the readers' pool beside the one
	// writer connection. MaxIdleConns of them are kept idle.
	MaxOpenConns    int
	MaxIdleConns    int
	ConnMaxLifetime time.Duration // 0: never closed for age
	ConnMaxIdleTime time.Duration // 0: never closed for idleness
	BusyTimeout     time.Duration // SQLite only: the wait for the write lock
	// ReadbackTimeout bounds the reads that settle a failed COMMIT
	// (store.readback_timeout).
	ReadbackTimeout time.Duration
	// LookupTimeout bounds each statement of a partner's look-up
	// (store.lookup_timeout): the database stops it then (MariaDB's
	// max_statement_time on the look-up pool; SQLite's interrupt).
	LookupTimeout time.Duration
	// LookupConns bounds the look-up pool (store.lookup_conns): on MySQL a
	// pool of its own, so look-ups never take the connections reports
	// use; on SQLite the readers' pool serves them (MaxOpenConns).
	LookupConns int
	// LockWaitTimeout bounds, on MySQL, a statement's wait for another
	// transaction's row lock (store.lock_wait_timeout; the session's
	// innodb_lock_wait_timeout, in whole seconds).
	LockWaitTimeout time.Duration
	// TLSCAFile, on MySQL, is the PEM file of the CA that signs the
	// server's certificate (store.tls_ca_file): set, every connection
	// uses TLS and verifies the server against it, under the name
	// TLSServerName (store.tls_server_name; empty: the DSN's host).
	TLSCAFile, TLSServerName string
	// AllowInsecureTLS, on MySQL, accepts a DSN whose TLS does not verify
	// the server or falls back to plain text (store.allow_insecure_tls;
	// checkTLS refuses it otherwise).
	AllowInsecureTLS bool
	// MaxBatch bounds the reports one commit carries (store.max_batch).
	MaxBatch int
	// BatchWriters is the number of group-commit writers
	// (store.batch_writers).
	BatchWriters int
	// GaleraWriters, on MySQL, is the writers that take batches once the
	// server is found to be a Galera node (store.batch_writers left to
	// auto there); 0 keeps BatchWriters.
	GaleraWriters int
	// OnNodeMove, when store.dsn lists several nodes, is told each time
	// the pools move from one node to another (their host:port), on the
	// store's probe goroutine; nil: nobody is.
	OnNodeMove func(from, to string)
	// Clock makes every timestamp the store writes itself.
	Clock ports.Clock
	// EventSlack (events.list_delay / 4) bounds how long an event's write
	// may wait in the store (the batch queue, a busy SQLite, a lock wait,
	// a transaction run again) before its time moves on by the rest
	// (domain.LateEventTime), so that GET /v1/events' list delay covers
	// what is left between the event's time and its commit; 0: events
	// keep the time they are given.
	EventSlack time.Duration
	// Migrations are the schema changes Migrate applies; nil, as the
	// service always leaves it: the released ones (Migrations). Only tests
	// set it, to stop before a release's migration or to add the next
	// field's; they are in other packages (test/migration*_test.go), which
	// an export_test.go seam cannot reach, so it stays an option.
	Migrations []Migration
}

// check refuses options Open cannot use (their TLS settings: checkTLS).
func (o Options) check(driver string) error {
	switch {
	case o.Clock == nil:
		return errors.New("gormstore: Options.Clock is required")
	case o.MaxOpenConns <= 0 || o.MaxIdleConns <= 0:
		return fmt.Errorf("gormstore: the pool bounds (%d open, %d idle) must be above 0", o.MaxOpenConns, o.MaxIdleConns)
	case o.MaxBatch <= 0 || o.BatchWriters <= 0 || o.GaleraWriters < 0:
		return fmt.Errorf("gormstore: the group commit's batch (%d) and writers (%d, %d on Galera) must be above 0", o.MaxBatch, o.BatchWriters, o.GaleraWriters)
	case o.LookupTimeout <= 0 || o.LookupConns <= 0:
		return fmt.Errorf("gormstore: the look-up bounds (%s, %d connections) must be above 0", o.LookupTimeout, o.LookupConns)
	case o.ReadbackTimeout <= 0:
		return fmt.Errorf("gormstore: the read-back bound (%s) must be above 0", o.ReadbackTimeout)
	case driver == MySQL && o.LockWaitTimeout < time.Second:
		return &SettingError{"store.lock_wait_timeout", fmt.Sprintf("%s, want at least 1s (MySQL counts whole seconds)", o.LockWaitTimeout)}
	case driver == SQLite && o.BusyTimeout <= 0:
		return fmt.Errorf("gormstore: SQLite's busy timeout (%s) must be above 0", o.BusyTimeout)
	}
	return nil
}
