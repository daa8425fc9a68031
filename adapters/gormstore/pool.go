package gormstore

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"
	"gorm.io/driver/mysql"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// pool is one connection pool and the two ways the store speaks through
// it, both over its one *sql.DB: GORM for CRUD, migrations and the sweep's
// queries, and the statements the hot path prepares itself (stmts), which
// database/sql prepares once per connection.
type pool struct {
	sql   *sql.DB
	orm   *gorm.DB
	stmts stmtCache
}

// poolBounds size a pool.
type poolBounds struct {
	open, idle      int
	life, idleLimit time.Duration // ConnMaxLifetime, ConnMaxIdleTime; 0: never
}

// target is what a pool connects to: a DSN per node (as SQLiteDSN or
// MySQLDSN made them; SQLite and a one-node MySQL have one) and, with
// several nodes, the nodeSet that chooses among them.
type target struct {
	dsns  []string
	nodes *nodeSet
	// onConnect, on MySQL, runs on each new connection (the commit pool's
	// session isolation).
	onConnect string
	// ownReads, on a Galera node, leaves the sessions' reads uncausal
	// (wsrep_sync_wait 0): the commit pool's transactions read only their
	// own rows and session variables (newConnector, openMySQL).
	ownReads bool
	// onGalera, if set, runs when a new connection finds its server a
	// Galera node (the commit pool's: Store.galeraSeen).
	onGalera func()
}

// each is t with f applied to every node's DSN.
func (t target) each(f func(string) (string, error)) (target, error) {
	out := target{dsns: make([]string, len(t.dsns)), nodes: t.nodes, onConnect: t.onConnect, ownReads: t.ownReads, onGalera: t.onGalera}
	for i, d := range t.dsns {
		var err error
		if out.dsns[i], err = f(d); err != nil {
			return target{}, err
		}
	}
	return out, nil
}

// close stops t's node probes, if any.
func (t target) close() error {
	if t.nodes == nil {
		return nil
	}
	return t.nodes.close()
}

// openPool opens a pool of driver on t within b, and GORM on that pool.
// Nothing connects yet: the database may come up later.
func openPool(driver string, t target, b poolBounds, conf *gorm.Config) (*pool, error) {
	var (
		db        *sql.DB
		dialector gorm.Dialector
		err       error
	)
	switch driver {
	case SQLite:
		db, dialector, err = openSQLiteDB(t.dsns[0])
	case MySQL:
		if db, err = openMySQLDB(t); err == nil {
			// No version query at open: the database may come up later,
			// and the service must start, stay not ready and reconnect.
			dialector = mysql.New(mysql.Config{Conn: db, SkipInitializeWithVersion: true})
		}
	default:
		return nil, fmt.Errorf("store.driver: %q is not sqlite or mysql", driver)
	}
	if err != nil {
		return nil, fmt.Errorf("open %s pool: %w", driver, err)
	}
	db.SetMaxOpenConns(b.open)
	db.SetMaxIdleConns(min(b.idle, b.open))
	db.SetConnMaxLifetime(b.life)
	db.SetConnMaxIdleTime(b.idleLimit)
	orm, err := gorm.Open(dialector, conf)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("open %s pool: %w", driver, err), db.Close())
	}
	return &pool{sql: db, orm: orm, stmts: stmtCache{db: db}}, nil
}

// openMySQLDB opens a pool on t's MySQLDSNs, through their connectors
// (causal reads on Galera: newConnector); with several nodes, through a
// nodeConnector that dials the node t's nodeSet has chosen.
func openMySQLDB(t target) (*sql.DB, error) {
	conns := make([]driver.Connector, len(t.dsns))
	for i, d := range t.dsns {
		cfg, err := mysqldrv.ParseDSN(d)
		if err != nil {
			return nil, err
		}
		if conns[i], err = newConnector(cfg, t); err != nil {
			return nil, err
		}
	}
	if t.nodes == nil {
		return sql.OpenDB(conns[0]), nil
	}
	return sql.OpenDB(nodeConnector{set: t.nodes, nodes: conns}), nil
}

// close closes the pool's prepared statements, then the pool.
func (p *pool) close() error {
	p.stmts.close()
	return p.sql.Close()
}

// gormConfig is GORM's configuration. The group commit's statements are
// prepared by the store itself (stmtCache; on MySQL once per connection,
// then one round trip each); GORM's own queries are interpolated on MySQL
// (one round trip, where preparing each would cost three).
func (s *Store) gormConfig() *gorm.Config {
	return &gorm.Config{
		Logger:                 logger.Discard,
		TranslateError:         true,
		SkipDefaultTransaction: true,
		DisableAutomaticPing:   true,
		NowFunc:                func() time.Time { return s.clock.Now().UTC() },
	}
}

// openOwnPool opens another pool of at most n connections on the store's
// database, for a component that must never wait for, nor take, the
// connections reports use (the login throttle). Its owner closes it.
func (s *Store) openOwnPool(n int) (*pool, error) {
	b := s.bounds
	b.open, b.idle = n, n
	p, err := openPool(s.driver, s.target, b, s.gormConfig())
	if err != nil {
		return nil, fmt.Errorf("open a pool of its own: %w", err)
	}
	return p, nil
}

// Pools returns the store's connection pools by name, for their
// statistics: "store", the pool every write uses (on MySQL every read
// but look-ups too; on SQLite the group commit's batches too), on SQLite
// "store_read", the readers' pool beside the one writer connection
// (look-ups included), and on MySQL "store_lookup", the look-ups' own
// pool, and "store_commit", the group commit's.
func (s *Store) Pools() map[string]*sql.DB {
	if s.read != s.write {
		return map[string]*sql.DB{"store": s.write.sql, "store_read": s.read.sql}
	}
	return map[string]*sql.DB{"store": s.write.sql, "store_lookup": s.look.sql, "store_commit": s.commit.sql}
}

// Pool returns the throttle's own pool, for its statistics.
func (t *Throttle) Pool() *sql.DB { return t.p.sql }
