package gormstore

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
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
//     MODE before its events (quietPartners): a creation's UPDATE of the
//     row waits for the batch's commit, or the batch waits for the
//     creation's and reads its count. Read committed takes no lock on a
//     row that is absent, so a partner without a row gets one (0
//     endpoints) from its first batch, which then holds it;
//   - on a Galera cluster a node's locks are its own, and certification
//     compares only what transactions write: a creation on another node
//     would not wait, so there every event is written undispatched and
//     the dispatcher decides, as before.
//
// What a MySQL batch cannot read (an error, a server whose kind is not
// known yet) it does not guess: the events are written undispatched.

// listenState is whether batches may write events dispatched.
const (
	listenUnknown int32 = iota // not asked yet (or the question failed)
	listenYes                  // one MySQL server that is not a Galera node
	listenNo                   // a Galera node, a list of nodes, or SQLite (its INSERT asks)
)

// listening decides, once, whether this MySQL store's batches read
// their partners' counts (listenState). It asks the server whether it is
// a Galera node; a failed question is asked again at the next batch.
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
	s.listen.Store(listenYes)
	return true
}

// quietCheck is a MySQL batch's question of quietPartners, prepared
// before its transaction as the batch's other statements are (a pool
// that lends its one connection to the transaction could not prepare it
// inside).
type quietCheck struct {
	partners []string  // the batch's partners, sorted; nil: do not decide
	counts   *sql.Stmt // reads their rows (endpointCounts)
}

// quietCheck prepares the question for reqs; the zero quietCheck when the
// store may not decide (listening).
func (s *Store) quietCheck(ctx context.Context, reqs []*request) (quietCheck, error) {
	if !s.listening(ctx) {
		return quietCheck{}, nil
	}
	partners := make([]string, 0, 1)
	for _, q := range reqs {
		if !slices.Contains(partners, q.r.PartnerUser) {
			partners = append(partners, q.r.PartnerUser)
		}
	}
	slices.Sort(partners) // every batch locks the rows in one order
	q := "SELECT partner_user, endpoints FROM " + countsTable + " WHERE partner_user IN " + inList(len(partners))
	q += " LOCK IN SHARE MODE"
	st, err := s.commit.stmts.get(ctx, q)
	if err != nil {
		return quietCheck{}, fmt.Errorf("endpoint counts: %w", err)
	}
	return quietCheck{partners: partners, counts: st}, nil
}

// quietPartners returns, sorted, the partners of c that have no webhook
// endpoint, read in tx as the comment above says.
func (s *Store) quietPartners(ctx context.Context, tx *sql.Tx, c quietCheck) ([]string, error) {
	if c.partners == nil {
		return nil, nil
	}
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
	args := make([]any, len(c.partners))
	for i, p := range c.partners {
		args[i] = p
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
