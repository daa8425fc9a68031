package gormstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

var _ ports.EndpointStore = (*Store)(nil)

// The webhook tables (migration 7).
const (
	endpointsTable = "webhook_endpoints"
	countsTable    = "webhook_endpoint_counts"
)

// CreateEndpoint adds e when its partner has fewer than max endpoints.
// The partner's count row is raised by a conditional UPDATE in the
// endpoint's transaction: on one server two creations wait for each
// other on that row, and on a Galera cluster two on two nodes both write
// it, so certification lets one commit (the other runs again and finds
// the count at max). domain.ErrConflict when the partner has max.
func (s *Store) CreateEndpoint(ctx context.Context, e domain.Endpoint, max int) error {
	if max < 1 {
		return fmt.Errorf("create endpoint: a maximum of %d endpoints", max)
	}
	ensure := "INSERT INTO " + countsTable + " (partner_user, endpoints) VALUES (?, 0)"
	if s.driver == MySQL {
		ensure += " ON DUPLICATE KEY UPDATE endpoints = endpoints"
	} else {
		ensure += " ON CONFLICT(partner_user) DO NOTHING"
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, ensure, e.PartnerUser); err != nil {
			return fmt.Errorf("count row: %w", err)
		}
		n, err := affected(ctx, tx, "UPDATE "+countsTable+" SET endpoints = endpoints + 1 WHERE partner_user = ? AND endpoints < ?", e.PartnerUser, max)
		if err != nil {
			return fmt.Errorf("count the endpoint: %w", err)
		}
		if n == 0 {
			return fmt.Errorf("the partner has %d endpoints: %w", max, domain.ErrConflict)
		}
		_, err = tx.ExecContext(ctx, "INSERT INTO "+endpointsTable+" (public_id, partner_user, url, event_types, description, status,"+
			" disabled_reason, secret, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
			e.ID, e.PartnerUser, e.URL, joinTypes(e.EventTypes), e.Description, string(endpointStatus(e.Status)),
			nullStr(e.DisabledReason), string(e.Secret), e.CreatedAt.UTC())
		return err
	})
	if err != nil {
		return fmt.Errorf("create endpoint: %w", err)
	}
	return nil
}

func endpointStatus(st domain.EndpointStatus) domain.EndpointStatus {
	if st == "" {
		return domain.EndpointEnabled
	}
	return st
}

// ListEndpoints returns user's endpoints, oldest first.
func (s *Store) ListEndpoints(ctx context.Context, user string) ([]domain.Endpoint, error) {
	ctx, cancel := s.lookupContext(ctx)
	defer cancel()
	out, err := queryAll(ctx, s.look, "SELECT "+endpointNames+" FROM "+endpointsTable+indexHint(s.driver, "ix_webhook_endpoints_user")+
		" WHERE partner_user = ? ORDER BY id", []any{user}, 8, scanEndpoint)
	if err != nil {
		return nil, fmt.Errorf("list endpoints: %w", err)
	}
	return out, nil
}

// AllEndpoints returns every partner's endpoints, oldest first.
func (s *Store) AllEndpoints(ctx context.Context) ([]domain.Endpoint, error) {
	out, err := queryAll(ctx, s.read, "SELECT "+endpointNames+" FROM "+endpointsTable+" ORDER BY id", nil, 64, scanEndpoint)
	if err != nil {
		return nil, fmt.Errorf("list every endpoint: %w", err)
	}
	return out, nil
}

// GetEndpoint returns user's endpoint id; domain.ErrNotFound.
func (s *Store) GetEndpoint(ctx context.Context, user, id string) (domain.Endpoint, error) {
	ctx, cancel := s.lookupContext(ctx)
	defer cancel()
	e, err := endpointByID(ctx, s.look.sql, user, id)
	if err != nil {
		return domain.Endpoint{}, fmt.Errorf("get endpoint: %w", err)
	}
	return e, nil
}

// endpointByID reads endpoint id through db, user's only unless user is
// ""; domain.ErrNotFound.
func endpointByID(ctx context.Context, db execer, user, id string) (domain.Endpoint, error) {
	query, args := "SELECT "+endpointNames+" FROM "+endpointsTable+" WHERE public_id = ?", []any{id}
	if user != "" {
		query, args = query+" AND partner_user = ?", append(args, user)
	}
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return domain.Endpoint{}, err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return domain.Endpoint{}, err
		}
		return domain.Endpoint{}, fmt.Errorf("endpoint %s: %w", domain.Clip(id), domain.ErrNotFound)
	}
	return scanEndpoint(rows)
}

// DeleteEndpoint removes user's endpoint id, lowers its partner's count,
// and removes its pending deliveries and its attempts, in one
// transaction; domain.ErrNotFound.
func (s *Store) DeleteEndpoint(ctx context.Context, user, id string) error {
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		e, err := endpointByID(ctx, tx, user, id)
		if err != nil {
			return err
		}
		// Two deletions of one endpoint at once both read it; the one
		// whose DELETE then finds no row is not found, and lowers no
		// count: a count below the partner's endpoints would have its
		// events written dispatched (listeners.go).
		n, err := affected(ctx, tx, "DELETE FROM "+endpointsTable+" WHERE id = ?", e.Seq)
		if err != nil {
			return err
		}
		if n == 0 {
			return domain.ErrNotFound
		}
		// The count last: report batches read its row (listeners.go), so
		// its lock is held from here to the COMMIT only.
		for _, st := range []struct {
			query string
			args  []any
		}{
			{"DELETE FROM " + deliveriesTable + " WHERE state = ? AND endpoint_id = ?", []any{string(ports.DeliveryPending), e.Seq}},
			{"DELETE FROM " + attemptsTable + " WHERE endpoint_id = ?", []any{e.Seq}},
			{"UPDATE " + countsTable + " SET endpoints = endpoints - 1 WHERE partner_user = ? AND endpoints > 0", []any{user}},
		} {
			if _, err := tx.ExecContext(ctx, st.query, st.args...); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("delete endpoint: %w", err)
	}
	return nil
}

// RotateSecret makes secret the endpoint's, the current one its previous
// until previousUntil, and returns the endpoint after; domain.ErrNotFound;
// domain.RotationRunning, changing nothing, while an earlier rotation's
// previous secret signs at now. The UPDATE's own condition decides, so
// two rotations at once make one.
func (s *Store) RotateSecret(ctx context.Context, user, id string, secret domain.WebhookSecret, now, previousUntil time.Time) (domain.Endpoint, error) {
	var e domain.Endpoint
	var rotated bool
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		// previous_secret is set first: MySQL assigns left to right, each
		// seeing the ones before (SQLite reads the row as it was).
		n, err := affected(ctx, tx, "UPDATE "+endpointsTable+" SET previous_secret = secret, previous_until = ?, secret = ?"+
			" WHERE public_id = ? AND partner_user = ? AND (previous_secret IS NULL OR previous_until IS NULL OR previous_until <= ?)",
			previousUntil.UTC(), string(secret), id, user, now.UTC())
		if err != nil {
			return err
		}
		rotated = n == 1
		e, err = endpointByID(ctx, tx, user, id)
		return err
	})
	if err != nil {
		return domain.Endpoint{}, fmt.Errorf("rotate secret: %w", err)
	}
	if !rotated {
		return domain.Endpoint{}, domain.RotationRunning(e.PreviousUntil)
	}
	return e, nil
}

// SetEndpointStatus enables or disables endpoint id, whoever's it is,
// with reason (at most domain.MaxWebhookDescriptionChars characters);
// domain.ErrNotFound.
func (s *Store) SetEndpointStatus(ctx context.Context, id string, status domain.EndpointStatus, reason string) error {
	if status != domain.EndpointEnabled && status != domain.EndpointDisabled {
		return fmt.Errorf("set endpoint status: %q is not an endpoint's status", status)
	}
	if status == domain.EndpointEnabled {
		reason = ""
	}
	if utf8.RuneCountInString(reason) > domain.MaxWebhookDescriptionChars {
		return domain.NewError(domain.ErrInvalidInput, "invalid_reason", "the reason is over "+
			fmt.Sprint(domain.MaxWebhookDescriptionChars)+" characters")
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := endpointByID(ctx, tx, "", id); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, "UPDATE "+endpointsTable+" SET status = ?, disabled_reason = ? WHERE public_id = ?",
			string(status), nullStr(reason), id)
		return err
	})
	if err != nil {
		return fmt.Errorf("set endpoint status: %w", err)
	}
	return nil
}
