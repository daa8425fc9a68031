package config

// These resolve the "0 = auto" settings whose value depends on another
// key. They are methods, not values fixed by Load, so that a caller (or a
// test) that changes store.driver or store.max_open_conns after Load gets
// the value that matches.

// IdleConns is store.max_idle_conns, where 0 means store.max_open_conns.
func (s StoreConfig) IdleConns() int {
	if s.MaxIdleConns == 0 {
		return s.MaxOpenConns
	}
	return min(s.MaxIdleConns, s.MaxOpenConns)
}

// Writers is store.batch_writers, where 0 means 1 on SQLite (one writer
// at a time anyway) and 4 on MySQL.
func (s StoreConfig) Writers() int {
	switch {
	case s.BatchWriters > 0:
		return s.BatchWriters
	case s.Driver == "mysql":
		return 4
	default:
		return 1
	}
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
