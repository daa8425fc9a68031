package config

import (
	"runtime"
	"sync"
	"time"
)

// Every "0 = auto" setting (and throttle.backend's auto) is resolved here,
// one way: by a method named for the value it gives, computed from the
// keys as they stand. Load never overwrites what was written, so a caller
// (or a test) that changes store.driver or http.max_in_flight after Load
// gets the value that matches; and adapters are handed these values, never
// a zero to default again. derived lists them for the start-up log and
// config print, which show the value in effect.

// Values the "0 = auto" settings stand for.
const (
	// StaleMargin is added to http.report_timeout to give the stale bound.
	StaleMargin = 5 * time.Second
	// maxSQLiteReaders caps SQLite's read pool: one database file, one
	// writer; more readers than this only wait on the same file.
	maxSQLiteReaders = 4
	// mysqlWriters is store.batch_writers' auto on MySQL; SQLite's is 1.
	// Two, not four: fewer writers take larger batches (fewer round
	// trips and commits a report), and a batch stuck on a key lock
	// still leaves one writer (docs/performance.md, "Two writers on
	// MySQL").
	mysqlWriters = 2
	// galeraWriters is store.batch_writers' auto on a MySQL server that
	// is a Galera node: one writer, so each certification round carries
	// the largest batch (docs/scaling.md measures 1, 2 and 4).
	galeraWriters = 1
)

// defaults are the settings' defaults, read once: what a setting whose 0
// means "the default" stands for, so the figure is written in its tag
// alone.
var defaults = sync.OnceValue(Defaults)

// derived maps each key whose value may be resolved from others to the
// value in effect.
var derived = map[string]func(*Config) any{
	"http.max_receiving":             func(c *Config) any { return c.HTTP.Receiving() },
	"http.max_receiving_per_partner": func(c *Config) any { return c.HTTP.ReceivingPerPartner() },
	"store.max_idle_conns":           func(c *Config) any { return c.Store.IdleConns() },
	"store.batch_writers":            func(c *Config) any { return c.Store.Writers() },
	"uploads.min_free_bytes":         func(c *Config) any { return c.Uploads.MinFree() },
	"auth.token_cache_size":          func(c *Config) any { return c.Auth.TokenCache() },
	"auth.max_concurrent_hashes":     func(c *Config) any { return c.Auth.ConcurrentHashes() },
	"throttle.backend":               func(c *Config) any { return c.ThrottleBackend() },
}

// hostDerived names the "0 = auto" keys whose value in effect comes from
// this host, not from the configuration: config print writes them as
// configured (0), with the value in effect as a comment, so a printed file
// copied to another host does not pin this host's figure there.
var hostDerived = map[string]bool{"auth.max_concurrent_hashes": true}

// Receiving is http.max_receiving, where 0 means 4 × http.max_in_flight
// (contract §7: by default at least four times the reports processed).
func (h HTTPConfig) Receiving() int {
	if h.MaxReceiving == 0 {
		return 4 * h.MaxInFlight
	}
	return h.MaxReceiving
}

// ReceivingPerPartner is http.max_receiving_per_partner, where 0 means
// http.max_in_flight (at most Receiving).
func (h HTTPConfig) ReceivingPerPartner() int {
	if h.MaxReceivingPerPartner == 0 {
		return min(h.MaxInFlight, h.Receiving())
	}
	return h.MaxReceivingPerPartner
}

// StaleBound is the age past which the sweep may take what a report left
// for a crash's leftover (contract §7): http.report_timeout and a margin,
// longer than any report can take.
func (h HTTPConfig) StaleBound() time.Duration { return h.ReportTimeout + StaleMargin }

// PoolSize is the connections of the pool that reads use: on MySQL
// store.max_open_conns, the one pool; on SQLite at most 4 readers beside
// the one writer connection.
func (s StoreConfig) PoolSize() int {
	if s.Driver == "mysql" {
		return s.MaxOpenConns
	}
	return min(s.MaxOpenConns, maxSQLiteReaders)
}

// IdleConns is store.max_idle_conns, where 0 means the whole pool
// (PoolSize), and never more than it.
func (s StoreConfig) IdleConns() int {
	if s.MaxIdleConns == 0 {
		return s.PoolSize()
	}
	return min(s.MaxIdleConns, s.PoolSize())
}

// Writers is store.batch_writers, where 0 means 1 on SQLite (one writer
// at a time anyway) and 2 on MySQL.
func (s StoreConfig) Writers() int {
	switch {
	case s.BatchWriters > 0:
		return s.BatchWriters
	case s.Driver == "mysql":
		return mysqlWriters
	default:
		return 1
	}
}

// GaleraWriters is the writers that take batches on a Galera node:
// galeraWriters when store.batch_writers is auto on MySQL, else 0 (keep
// Writers). Only the store can tell a Galera node, once connected.
func (s StoreConfig) GaleraWriters() int {
	if s.BatchWriters > 0 || s.Driver != "mysql" {
		return 0
	}
	return galeraWriters
}

// MinFree is uploads.min_free_bytes, where 0 means twice
// uploads.max_file_bytes.
func (u UploadsConfig) MinFree() ByteSize {
	if u.MinFreeBytes == 0 {
		return 2 * u.MaxFileBytes
	}
	return u.MinFreeBytes
}

// TokenCache is auth.token_cache_size, where 0 means its default.
func (a AuthConfig) TokenCache() int {
	if a.TokenCacheSize == 0 {
		return defaults().Auth.TokenCacheSize
	}
	return a.TokenCacheSize
}

// ConcurrentHashes is auth.max_concurrent_hashes, where 0 means the
// number of CPUs.
func (a AuthConfig) ConcurrentHashes() int {
	if a.MaxConcurrentHashes == 0 {
		return runtime.NumCPU()
	}
	return a.MaxConcurrentHashes
}

// ThrottleBackend is throttle.backend, where auto means database when
// store.driver is mysql (replicas share the counters) and memory otherwise.
func (c *Config) ThrottleBackend() string {
	if c.Throttle.Backend != "auto" {
		return c.Throttle.Backend
	}
	if c.Store.Driver == "mysql" {
		return "database"
	}
	return "memory"
}
