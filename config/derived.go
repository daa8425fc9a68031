package config

// These resolve the "0 = auto" settings whose value depends on another
// key. They are methods, not values fixed by Load, so that a caller (or a
// test) that changes store.driver or store.max_open_conns after Load gets
// the value that matches.

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
