package gormstore

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// A report's report.received event is written with its row. When its
// partner has no webhook endpoint at all, nobody can take the event, and
// it is written dispatched: the dispatcher then has nothing to mark for
// it (its UPDATE of each event cost about 4 % of a small report's CPU).
//
// Whether a partner has an endpoint is its row of webhook_endpoint_counts
// (absent or 0: none), which every endpoint's creation and deletion
// writes (endpoints.go). It is read inside the report's transaction, so
// that an endpoint created at the same time is seen or waits:
//
//   - on SQLite every write transaction begins IMMEDIATE, so the batch
//     and a creation run one after the other; the event's INSERT asks the
//     count itself (statements.go), costing no statement more;
//   - on one MySQL server the batch reads its partners' rows LOCK IN SHARE
//     MODE before its events (beginBatch): a creation's or deletion's
//     UPDATE of a row waits for the batch's commit; a row such an UPDATE
//     holds makes the batch write its events undispatched (NOWAIT on
//     MariaDB 10.3 and later and MySQL 8; elsewhere after waiting for
//     it, or after the lock wait bound). Read committed takes no lock on
//     a row that is absent, so a partner without a row gets one (0
//     endpoints) from its first batch, which then holds it;
//   - on a Galera cluster a node's locks are its own, and certification
//     compares only what transactions write: a creation on another node
//     would not wait, so there every event is written undispatched and
//     the dispatcher decides, as before.
//
// What a MySQL batch cannot read (a row held by a creation or deletion,
// an error, a server whose kind is not known yet) it does not guess or
// wait for: the events are written undispatched (beginBatch).

// listenState is whether batches read their partners' counts.
const (
	listenUnknown int32 = iota // not asked yet (or the question failed)
	listenYes                  // one MySQL server that is not a Galera node
	listenNo                   // a Galera node, a list of nodes, or SQLite (its INSERT asks)
)

// listening decides whether this MySQL store's batches read their
// partners' counts (listenState). It asks the server whether it is a
// Galera node, and its version (the read's locking clause, countsLock);
// a failed question is asked again at the next batch. A connection of
// the commit pool that finds wsrep on later (a server restarted into a
// cluster under the same address) turns it off for good (galeraSeen).
func (s *Store) listening(ctx context.Context) bool {
	switch s.listen.Load() {
	case listenYes:
		return true
	case listenNo:
		return false
	}
	if s.driver != MySQL || len(s.target.dsns) > 1 {
		s.listen.Store(listenNo)
		return false
	}
	on, err := s.galeraNode(ctx)
	if err != nil {
		return false
	}
	if on {
		s.listen.Store(listenNo)
		return false
	}
	var version string
	if err := s.write.sql.QueryRowContext(ctx, "SELECT VERSION()").Scan(&version); err != nil {
		return false
	}
	lock := countsLock(version)
	s.countsLock.Store(&lock)
	return s.listen.CompareAndSwap(listenUnknown, listenYes) || s.listen.Load() == listenYes
}

// countsLock is the locking clause of the counts' read on a server of
// version (SELECT VERSION()): one that does not wait where the server
// has it (MariaDB 10.3 and later; MySQL 8), so a row held by an
// endpoint's creation or deletion fails the read at once (beginBatch).
func countsLock(version string) string {
	maria := strings.Contains(strings.ToLower(version), "mariadb")
	major, rest, _ := strings.Cut(strings.TrimPrefix(version, "5.5.5-"), ".")
	minor, _, _ := strings.Cut(rest, ".")
	ma, err1 := strconv.Atoi(major)
	mi, err2 := strconv.Atoi(minor)
	switch {
	case err1 != nil || err2 != nil:
	case maria && (ma > 10 || ma == 10 && mi >= 3):
		return " LOCK IN SHARE MODE NOWAIT"
	case !maria && ma >= 8:
		return " FOR SHARE NOWAIT"
	}
	return " LOCK IN SHARE MODE"
}

// galeraSeen is called by a commit-pool connection that found wsrep on.
func (s *Store) galeraSeen() { s.listen.Store(listenNo) }

// quietCheck is a MySQL batch's question of quietPartners, prepared
// before its transaction as the batch's other statements are.
type quietCheck struct {
	partners []string  // the batch's partners, sorted; nil: do not ask
	counts   *sql.Stmt // reads their rows (endpointCounts)
}

// quietCheck prepares the question for reqs: the zero quietCheck (every
// event undispatched) when the store may not ask (listening) or cannot
// prepare it. The IN list has a power of two of places (the last partner
// repeated), so that a server holds at most a few such statements.
func (s *Store) quietCheck(ctx context.Context, reqs []*request) quietCheck {
	if !s.listening(ctx) {
		return quietCheck{}
	}
	partners := make([]string, 0, 1)
	for _, q := range reqs {
		if !slices.Contains(partners, q.r.PartnerUser) {
			partners = append(partners, q.r.PartnerUser)
		}
	}
	slices.Sort(partners) // every batch locks the rows in one order
	q := "SELECT partner_user, endpoints FROM " + countsTable + " WHERE partner_user IN " +
		inList(placesFor(len(partners))) + *s.countsLock.Load()
	st, err := s.commit.stmts.get(ctx, q)
	if err != nil {
		return quietCheck{}
	}
	return quietCheck{partners: partners, counts: st}
}

// placesFor is the power of two at or above n.
func placesFor(n int) int {
	p := 1
	for p < n {
		p *= 2
	}
	return p
}

// beginBatch begins a batch's transaction and reads which of check's
// partners are quiet. When they cannot be read (an endpoint's creation or
// deletion holds a row: NOWAIT, or a lock wait; a deadlock; an error), it
// rolls that transaction back, whatever the failed statement left of it,
// and begins another whose events are all undispatched.
func (s *Store) beginBatch(ctx context.Context, check quietCheck) (*sql.Tx, []string, error) {
	tx, err := s.commit.sql.BeginTx(ctx, nil)
	// A connection BeginTx opened may have just found wsrep on
	// (galeraSeen): then this batch does not decide either.
	if err != nil || check.partners == nil || s.listen.Load() != listenYes {
		return tx, nil, err
	}
	quiet, err := s.quietPartners(ctx, tx, check)
	if err == nil {
		return tx, quiet, nil
	}
	_ = tx.Rollback()
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	tx, err = s.commit.sql.BeginTx(ctx, nil)
	return tx, nil, err
}

// quietPartners returns, sorted, the partners of c that have no webhook
// endpoint, read in tx as the comment above says.
func (s *Store) quietPartners(ctx context.Context, tx *sql.Tx, c quietCheck) ([]string, error) {
	counts, err := endpointCounts(ctx, tx, c)
	if err != nil {
		return nil, err
	}
	if len(counts) < len(c.partners) {
		// A partner without a row: make it, holding it until commit, then
		// read again (a creation that made it meanwhile has committed).
		var args []any
		for _, p := range c.partners {
			if _, ok := counts[p]; !ok {
				args = append(args, p)
			}
		}
		q := "INSERT INTO " + countsTable + " (partner_user, endpoints) VALUES " +
			strings.TrimSuffix(strings.Repeat("(?, 0), ", len(args)), ", ") + " ON DUPLICATE KEY UPDATE endpoints = endpoints"
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return nil, fmt.Errorf("endpoint count rows: %w", err)
		}
		if counts, err = endpointCounts(ctx, tx, c); err != nil {
			return nil, err
		}
	}
	var quiet []string
	for _, p := range c.partners {
		if n, ok := counts[p]; ok && n == 0 {
			quiet = append(quiet, p)
		}
	}
	return quiet, nil
}

// endpointCounts reads c's partners' rows of webhook_endpoint_counts in
// tx, locking them shared until commit.
func endpointCounts(ctx context.Context, tx *sql.Tx, c quietCheck) (map[string]int64, error) {
	args := make([]any, placesFor(len(c.partners)))
	for i := range args {
		args[i] = c.partners[min(i, len(c.partners)-1)]
	}
	rows, err := tx.StmtContext(ctx, c.counts).QueryContext(ctx, args...)
	if err != nil {
		return nil, fmt.Errorf("endpoint counts: %w", err)
	}
	defer rows.Close()
	counts := make(map[string]int64, len(c.partners))
	for rows.Next() {
		var p string
		var n int64
		if err := rows.Scan(&p, &n); err != nil {
			return nil, fmt.Errorf("endpoint counts: %w", err)
		}
		counts[p] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("endpoint counts: %w", err)
	}
	return counts, nil
}

// dispatched is the event's dispatched column for a report of user.
func dispatched(quiet []string, user string) int {
	if slices.Contains(quiet, user) {
		return 1
	}
	return 0
}
