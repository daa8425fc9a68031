package ports

import (
	"context"
	"errors"
	"time"

	"github.com/lender/disbursementd/domain"
)

// ErrRecordGone is ReportStore.StoreReport's answer when the key was
// taken but the record that took it was gone when read: a retry result,
// not a failure.
var ErrRecordGone = errors.New("the record that took the key is gone")

// Clock tells the time; every component takes the one it is given.
type Clock interface{ Now() time.Time }

// ReportStore keeps staged reports and their idempotency records.
type ReportStore interface {
	// StoreReport inserts the staging row r and its idempotency record rec
	// (state done, with rec.Nonce) atomically, and returns the row's id.
	// Concurrent calls may share one transaction and one durable commit
	// (group commit); each call's outcome stays its own. When a record for
	// the same user and key hash exists, nothing is stored and it returns
	// that record with an error of kind domain.ErrConflict; the uniqueness
	// is the store's constraint. When the key was taken but the record
	// that took it is gone by the time it is read (it expired and was
	// removed in between), nothing is stored and the error is
	// ErrRecordGone: the caller may store again. When the commit failed in
	// a way that does not tell whether it was applied, the error is of kind
	// domain.ErrOutcomeUnknown. Other errors mean nothing was stored.
	StoreReport(ctx context.Context, r domain.StagedReport, rec domain.IdempotencyRecord) (int64, domain.IdempotencyRecord, error)
	// GetKey returns the record for user and key hash, or domain.ErrNotFound.
	GetKey(ctx context.Context, user, keyHash string) (domain.IdempotencyRecord, error)
	// DeleteKey removes the record if it is still rec (same user, key
	// hash, nonce and state), so an expired or abandoned record is taken
	// over only once.
	DeleteKey(ctx context.Context, rec domain.IdempotencyRecord) error
	// StoredReceipt returns the receipt of report id as stored now (its
	// state and decision included), for a replay's answer; an error of
	// kind domain.ErrNotFound when it is no longer stored: the retention
	// purge deletes reports whose idempotency records may outlive them.
	StoredReceipt(ctx context.Context, id int64) (domain.StoredReceipt, error)
	// Ping checks that the store answers and can serve: a store that
	// answers but cannot read or write (a Galera node outside the Primary
	// component) fails it.
	Ping(ctx context.Context) error
}

// SweepStore is what the crash sweep asks of the report store.
type SweepStore interface {
	// NamedFiles returns which of names a staging row names.
	NamedFiles(ctx context.Context, names []string) (map[string]bool, error)
	// TombstoneFile decides, in the store that decides rows, that the file
	// name is removed: true when no report can store a row naming it any
	// more (the caller may remove the file); false when a report has
	// reserved it, or is reserving it in a transaction not yet settled
	// (the file stays). StoreReport of a report whose file name has a tombstone
	// fails and stores nothing.
	TombstoneFile(ctx context.Context, name string) (bool, error)
	// PurgedFiles returns which of names were files of reports the
	// retention purge deleted (PurgeStore.DeleteReports records them): no
	// report can name them again, and the sweep deletes them instead of
	// keeping them in quarantine.
	PurgedFiles(ctx context.Context, names []string) (map[string]bool, error)
	// UncheckedReservations returns up to limit files of stored rows,
	// created before before, that MarkChecked has not yet marked, oldest
	// first. A row is listed once it has committed, however late.
	UncheckedReservations(ctx context.Context, before time.Time, limit int) ([]domain.FileRow, error)
	// MarkChecked marks the files of stored rows as checked.
	MarkChecked(ctx context.Context, names []string) error
	// PurgeTombstones deletes at most limit tombstones created before
	// before and says how many; without apply it only counts them all.
	PurgeTombstones(ctx context.Context, before time.Time, limit int, apply bool) (int64, error)
	// FileRows returns up to limit rows that name a file, with ids above
	// afterID, in id order.
	FileRows(ctx context.Context, afterID int64, limit int) ([]domain.FileRow, error)
	// PurgeKeys deletes at most limit idempotency records that are pending
	// since before pendingBefore (only release 1.0.0 wrote pending records:
	// compat100.go) or expired before expiredBefore, and says how many of
	// each it deleted; without apply it only counts them all.
	PurgeKeys(ctx context.Context, pendingBefore, expiredBefore time.Time, limit int, apply bool) (pending, expired int64, err error)
}

// UserStore keeps the built-in login's users. Names are compared byte for
// byte.
type UserStore interface {
	// CreateUser adds a user; domain.ErrConflict when the name is taken.
	CreateUser(ctx context.Context, u domain.User) error
	// GetUser returns a user or domain.ErrNotFound.
	GetUser(ctx context.Context, name string) (domain.User, error)
	// SetActive activates or deactivates a user; domain.ErrNotFound.
	SetActive(ctx context.Context, name string, active bool) error
	// ListUsers returns every user by name.
	ListUsers(ctx context.Context) ([]domain.User, error)
	// SetPasswordHash replaces a user's hash old with hash (a rehash of
	// the same password: its tokens stay valid): domain.ErrConflict when
	// the hash is no longer old (a password change or a rotation came
	// between the read and the rehash, and stands), domain.ErrNotFound.
	SetPasswordHash(ctx context.Context, name, old, hash string) error
	// ChangePassword replaces a user's hash with a new password's and
	// records at as its PasswordChangedAt; domain.ErrNotFound.
	ChangePassword(ctx context.Context, name, hash string, at time.Time) error
	// RotatePassword writes a rotation provided the user's hash is still
	// currentHash (a compare-and-set across replicas); domain.ErrConflict
	// when it changed, domain.ErrNotFound.
	RotatePassword(ctx context.Context, name, currentHash string, r domain.Rotation) error
}

// UploadStore keeps the reports' files.
type UploadStore interface {
	// Save writes f's content under domain.FileName(creditNumber, at,
	// f.Ext), moving the timestamp on while the name is taken and never
	// replacing an existing file, and returns the name used. When it
	// returns, the content and its name survive a crash. Concurrent Saves
	// may share one directory sync. A failed Save leaves at most a
	// leftover that the sweep removes.
	Save(ctx context.Context, creditNumber string, at time.Time, f *domain.File) (string, error)
	// Remove deletes a file written by Save; a missing file is no error.
	Remove(ctx context.Context, name string) error
	// Exists reports whether a published file is there.
	Exists(ctx context.Context, name string) (bool, error)
	// Check says whether files can be written now: reachable, writable,
	// enough free space, still the configured place.
	Check(ctx context.Context) error
}

// UploadInventory is an upload store as the sweep sees it: its files and
// the leftovers of unfinished Saves, which it can list and remove, and
// its quarantine.
type UploadInventory interface {
	UploadStore
	QuarantineArea
	// Walk calls fn for every published file and every leftover of an
	// unfinished Save (Temp), in no particular order; never a file in
	// quarantine.
	Walk(ctx context.Context, fn func(StoredObject) error) error
	// RemoveLeftover deletes a leftover that Walk reported.
	RemoveLeftover(ctx context.Context, o StoredObject) error
}

// QuarantineArea is where the sweep puts published files that no row
// names, instead of deleting them: a place beside the published files
// that Walk and Exists never see, so a quarantined file is neither
// served nor taken for an orphan again. Every method refuses a name that
// is not an upload name (domain.IsUploadName, no path), with an error of
// kind domain.ErrInvalidInput.
type QuarantineArea interface {
	// Quarantine moves a published file into quarantine, dated now (its
	// ModTime there is when it was quarantined). It never replaces a
	// different file quarantined under that name (an error); the same
	// file there already (an earlier run moved it and stopped) is no
	// error. A file not published is an error of kind domain.ErrNotFound.
	Quarantine(ctx context.Context, name string) error
	// WalkQuarantine calls fn for every quarantined file, with the time
	// it was quarantined.
	WalkQuarantine(ctx context.Context, fn func(StoredObject) error) error
	// Unquarantine moves a quarantined file back to where Save put it,
	// never replacing a published file: one with other content is an
	// error of kind domain.ErrConflict; one with the same content (put
	// back by other means) counts as the file in place, and the
	// quarantined copy is removed. A name not in quarantine:
	// domain.ErrNotFound.
	Unquarantine(ctx context.Context, name string) error
	// RemoveQuarantined deletes a quarantined file; a missing one is no
	// error.
	RemoveQuarantined(ctx context.Context, name string) error
}

// StoredObject is one entry of an upload store.
type StoredObject struct {
	Name    string    // the file's name, or the leftover's
	ModTime time.Time // when it was last written
	Temp    bool      // a leftover of an unfinished Save
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

// TokenVerifier checks a token's form and signature against the trusted
// keys and returns its claims, or an error of kind domain.ErrInvalidToken.
type TokenVerifier interface {
	Verify(token string) (domain.Claims, error)
}

// SlotHolder is a CredentialExchange or PasswordHasher that lets a login
// attempt hold one comparison slot across all its comparisons (the
// decoded and the raw HTTP Basic pair, a rotation's previous password):
// Hold takes a slot, or fails as Compare does when none frees in time
// (domain.ErrUnavailable with RetryAfter); Compare with the context it
// returns takes none of its own; release gives the slot back. So an
// attempt is turned away busy before any comparison or never, and one
// that was is rightly not counted (the twenty-first session's review:
// a second comparison turned away busy refunded the first's work).
type SlotHolder interface {
	Hold(ctx context.Context) (held context.Context, release func(), err error)
}

// PasswordHasher hashes and checks passwords.
type PasswordHasher interface {
	Hash(password string) (string, error)
	// Compare returns nil when password matches hash. Every comparison
	// does the same work, whatever the parameters hash was made with (an
	// imported PHP hash of a lower cost included), so a known name cannot
	// be told from an unknown one by it. It bounds the comparisons that
	// run at once; one that cannot start in time returns an error of kind
	// domain.ErrUnavailable with RetryAfter set.
	Compare(ctx context.Context, hash, password string) error
	// Dummy returns a hash to compare against for unknown users, so they
	// cost the same time as a wrong password.
	Dummy() string
	// Admit tells the hasher of a stored hash: from then on every
	// comparison, an unknown user's included, does at least the work of
	// one against it (a stored hash dearer than Hash makes).
	Admit(hash string)
	// NeedsRehash reports whether hash was made with other parameters
	// than Hash uses now (e.g. an imported PHP hash of a lower cost).
	NeedsRehash(hash string) bool
}

// TokenCache remembers tokens whose signature was verified, so a reused
// token costs no RSA work. Entries are bounded in number; the caller still
// applies the claim rules (expiry) on every use.
type TokenCache interface {
	Get(token string) (domain.Claims, bool)
	Put(token string, c domain.Claims)
}

// UserStatusCache remembers what the user store said of a user; the
// caller decides how old an answer may be.
type UserStatusCache interface {
	Get(user string) (UserStatus, bool)
	Put(user string, s UserStatus)
}

// UserStatus is what the user store said of a user, and when.
type UserStatus struct {
	Known, Active bool
	// PasswordChanged is the user's PasswordChangedAt (zero: never).
	PasswordChanged time.Time
	// RotatedAt and PreviousUntil are the user's last rotation and the
	// end of its overlap (zero: none).
	RotatedAt, PreviousUntil time.Time
	At                       time.Time
}

// Tokens is what the status says of the user's tokens
// (domain.TokenRefused).
func (s UserStatus) Tokens() domain.UserTokens {
	return domain.UserTokens{PasswordChanged: s.PasswordChanged, RotatedAt: s.RotatedAt, PreviousUntil: s.PreviousUntil}
}

// Principal is the partner user a verified token speaks for.
type Principal struct {
	User    string
	NIT     string
	TokenID string
}
