package gormstore

import (
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/lender/disbursementd/domain"
)

// endpointNames are the columns of an endpoint, in the order
// endpointCols reads them.
const endpointNames = "id, public_id, partner_user, url, event_types, description, status, disabled_reason," +
	" secret, previous_secret, previous_until, created_at, last_success_at"

// endpointCols receives the columns of endpointNames.
type endpointCols struct {
	seq                                       int64
	id, user, url, types, description, status string
	reason, secret, previous                  sql.NullString
	previousUntil, created, lastSuccess       any
}

func (ec *endpointCols) dest() []any {
	return []any{&ec.seq, &ec.id, &ec.user, &ec.url, &ec.types, &ec.description, &ec.status, &ec.reason,
		&ec.secret, &ec.previous, &ec.previousUntil, &ec.created, &ec.lastSuccess}
}

func (ec *endpointCols) endpoint() (domain.Endpoint, error) {
	types, err := splitTypes(ec.types)
	if err != nil {
		return domain.Endpoint{}, fmt.Errorf("endpoint %s: %w", ec.id, err)
	}
	e := domain.Endpoint{Seq: ec.seq, ID: ec.id, PartnerUser: ec.user, URL: ec.url, EventTypes: types,
		Description: ec.description, Status: domain.EndpointStatus(ec.status), DisabledReason: ec.reason.String,
		Secret: domain.WebhookSecret(ec.secret.String), PreviousSecret: domain.WebhookSecret(ec.previous.String)}
	if e.Status != domain.EndpointEnabled && e.Status != domain.EndpointDisabled {
		return domain.Endpoint{}, fmt.Errorf("endpoint %s: status %q is not an endpoint's", ec.id, domain.Clip(ec.status))
	}
	for _, t := range []struct {
		to   *time.Time
		from any
		name string
	}{{&e.PreviousUntil, ec.previousUntil, "previous_until"}, {&e.CreatedAt, ec.created, "created_at"},
		{&e.LastSuccessAt, ec.lastSuccess, "last_success_at"}} {
		if t.from == nil {
			continue
		}
		if *t.to, err = storedTime(t.from); err != nil {
			return domain.Endpoint{}, fmt.Errorf("endpoint %s: %s: %w", ec.id, t.name, err)
		}
	}
	return e, nil
}

func scanEndpoint(rows *sql.Rows) (domain.Endpoint, error) {
	var ec endpointCols
	if err := rows.Scan(ec.dest()...); err != nil {
		return domain.Endpoint{}, err
	}
	return ec.endpoint()
}

// joinTypes is the event_types column of types: a comma list, "" for
// every type.
func joinTypes(types []domain.EventType) string {
	names := make([]string, len(types))
	for i, t := range types {
		names[i] = string(t)
	}
	return strings.Join(names, ",")
}

// splitTypes reads the event_types column back; a word that is not an
// event type is an error.
func splitTypes(col string) ([]domain.EventType, error) {
	if col == "" {
		return nil, nil
	}
	var out []domain.EventType
	for _, w := range strings.Split(col, ",") {
		t, ok := domain.ParseEventType(w)
		if !ok {
			return nil, fmt.Errorf("event type %q", domain.Clip(w))
		}
		out = append(out, t)
	}
	return out, nil
}
