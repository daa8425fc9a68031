package gormstore

import "database/sql"

// Pools returns the store's connection pools by name, for their
// statistics: "store", the pool every write uses (on MySQL every read
// too), and on SQLite "store_read", the readers' pool beside the one
// writer connection.
func (s *Store) Pools() map[string]*sql.DB {
	if s.driver == SQLite {
		return map[string]*sql.DB{"store": s.wsql, "store_read": s.rsql}
	}
	return map[string]*sql.DB{"store": s.wsql}
}

// Pool returns the throttle's own pool, for its statistics.
func (t *Throttle) Pool() *sql.DB { return t.pool }
