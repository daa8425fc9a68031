// Package ports declares the interfaces the core needs from the outside
// world and the use-case services that drive them. Like domain, it imports
// the standard library only.
package ports

import (
	"context"
	"io"
	"time"

	"github.com/lender/disbursementd/domain"
)

// Clock tells the time; tests pass a fixed one.
type Clock interface{ Now() time.Time }

// SystemClock is the real clock.
type SystemClock struct{}

// Now returns the current time.
func (SystemClock) Now() time.Time { return time.Now() }

// ReportStore keeps staged reports and idempotency records.
type ReportStore interface {
	// ClaimKey inserts rec (state pending). When a record for the same
	// user and key hash exists it returns that record and an error of kind
	// domain.ErrConflict; the uniqueness is the store's constraint, not a
	// check-then-insert.
	ClaimKey(ctx context.Context, rec domain.IdempotencyRecord) (domain.IdempotencyRecord, error)
	// GetKey returns the record for user and key hash, or domain.ErrNotFound.
	GetKey(ctx context.Context, user, keyHash string) (domain.IdempotencyRecord, error)
	// DeleteKey removes the record if it is still rec (same user, key
	// hash, nonce and state), so a stale claim is taken over only once and
	// releasing a claim never removes it once it is done.
	DeleteKey(ctx context.Context, rec domain.IdempotencyRecord) error
	// CommitReport inserts the staging row and marks the claim done with
	// the new id and file name, in one transaction; if the claim is no
	// longer ours, nothing is stored and an error is returned.
	CommitReport(ctx context.Context, r domain.StagedReport, claim domain.IdempotencyRecord) (int64, error)
	// InsertReportWithKey inserts the staging row and rec, already done
	// with the new id, in one transaction. When a record for the same user
	// and key hash exists, nothing is stored and it returns that record
	// and an error of kind domain.ErrConflict.
	InsertReportWithKey(ctx context.Context, r domain.StagedReport, rec domain.IdempotencyRecord) (int64, domain.IdempotencyRecord, error)
	// Ping checks that the store answers.
	Ping(ctx context.Context) error
}

// UserStore keeps the built-in login's users.
type UserStore interface {
	// CreateUser adds a user; domain.ErrConflict when the name is taken.
	CreateUser(ctx context.Context, u domain.User) error
	// GetUser returns a user or domain.ErrNotFound.
	GetUser(ctx context.Context, name string) (domain.User, error)
	// SetActive activates or deactivates a user; domain.ErrNotFound.
	SetActive(ctx context.Context, name string, active bool) error
	// ListUsers returns every user by name.
	ListUsers(ctx context.Context) ([]domain.User, error)
	// SetPasswordHash replaces a user's hash; domain.ErrNotFound.
	SetPasswordHash(ctx context.Context, name, hash string) error
}

// UploadStore keeps the reports' files.
type UploadStore interface {
	// Save writes the content read from r durably under
	// domain.FileName(credit, at, ext), moving the timestamp on if the
	// name exists, and never replacing a file. It returns the name used.
	Save(ctx context.Context, creditNumber, ext string, at time.Time, r io.Reader) (string, error)
	// Remove deletes a file written by Save (rollback of a failed insert).
	Remove(ctx context.Context, name string) error
	// Check says whether the upload directory is usable.
	Check(ctx context.Context) error
}

// CredentialExchange swaps a user name and password for an access token.
type CredentialExchange interface {
	// Exchange returns a token, or an error of kind domain.ErrInvalidClient,
	// domain.ErrThrottled or domain.ErrUnavailable.
	Exchange(ctx context.Context, user, password string) (string, error)
}

// TokenIssuer signs claims into a token.
type TokenIssuer interface {
	Issue(c domain.Claims) (string, error)
}

// TokenVerifier checks a token's signature against the trusted keys and
// returns its claims, or an error of kind domain.ErrInvalidToken.
type TokenVerifier interface {
	Verify(token string) (domain.Claims, error)
}

// PasswordHasher hashes and checks passwords.
type PasswordHasher interface {
	Hash(password string) (string, error)
	// Compare returns nil when password matches hash.
	Compare(hash, password string) error
	// Dummy returns a hash to compare against for unknown users, so they
	// cost the same time as a wrong password.
	Dummy() string
	// NeedsRehash reports whether hash was made with other parameters
	// than Hash uses now (e.g. an imported PHP hash of a lower cost).
	NeedsRehash(hash string) bool
}
