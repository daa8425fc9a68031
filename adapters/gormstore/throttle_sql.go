package gormstore

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/lender/disbursementd/ports"
)

// throttleSQL are the throttle's statements for one driver. Every time in
// them is the database's own: NOW stands for the database's clock in
// nanoseconds since 1970 (UTC), evaluated once per statement (MySQL) or
// per row step (SQLite), never a value a replica sends.
type throttleSQL struct {
	held string // key, window ns, limit → at_ns, now of the newest attempts in the window (no lock)
	// lockKey (key, window ns) creates or extends the key's row, taking its
	// lock. It always changes the row (expires_ns moves by at least 1), so
	// every slot taken writes it: two Takes of one key on two nodes of a
	// Galera cluster, where a row lock holds on one node only, conflict at
	// certification, and the loser runs again and counts the winner's.
	lockKey   string
	newest    string // key, n → at_ns, expires_ns, now of the key's n newest attempts
	reserve   string // key, attempt id, window ns
	dropStale string // key: its expired attempts
	prune     []string
	countKind string // low, high → key rows in [low, high)
	victims   string // low, high, n → the n key rows in [low, high) whose window ends first, locked
}

// Database clocks in nanoseconds since 1970 UTC. MySQL: microseconds from
// the epoch to UTC_TIMESTAMP(6), which no session time zone shifts;
// SQLite: unixepoch('subsec'), milliseconds, on the one host whose file
// every process shares.
const (
	mysqlNowNs  = "(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) * 1000)"
	sqliteNowNs = "(CAST(unixepoch('subsec') * 1000 AS INTEGER) * 1000000)"
)

func throttleStatements(driver string) throttleSQL {
	q := throttleSQL{
		held:      "SELECT at_ns, NOW FROM login_attempts WHERE key_hash = ? AND at_ns > NOW - ? ORDER BY at_ns DESC LIMIT ?",
		newest:    "SELECT at_ns, expires_ns, NOW FROM login_attempts WHERE key_hash = ? ORDER BY at_ns DESC LIMIT ?",
		reserve:   "INSERT INTO login_attempts (key_hash, attempt_id, at_ns, expires_ns) VALUES (?, ?, NOW, NOW + ?)",
		dropStale: "DELETE FROM login_attempts WHERE key_hash = ? AND expires_ns <= NOW",
		countKind: "SELECT COUNT(*) FROM login_throttle_keys WHERE key_hash >= ? AND key_hash < ?",
	}
	now := sqliteNowNs
	if driver == MySQL {
		now = mysqlNowNs
		q.lockKey = "INSERT INTO login_throttle_keys (key_hash, expires_ns) VALUES (?, NOW + ?) " +
			"ON DUPLICATE KEY UPDATE expires_ns = GREATEST(expires_ns + 1, VALUES(expires_ns))"
		q.prune = []string{
			"DELETE FROM login_attempts WHERE expires_ns <= NOW LIMIT ?",
			"DELETE FROM login_throttle_keys WHERE expires_ns <= NOW LIMIT ?",
		}
		q.victims = "SELECT key_hash FROM login_throttle_keys WHERE key_hash >= ? AND key_hash < ? ORDER BY expires_ns LIMIT ? FOR UPDATE"
	} else {
		q.lockKey = "INSERT INTO login_throttle_keys (key_hash, expires_ns) VALUES (?, NOW + ?) " +
			"ON CONFLICT(key_hash) DO UPDATE SET expires_ns = MAX(expires_ns + 1, excluded.expires_ns)"
		q.prune = []string{
			"DELETE FROM login_attempts WHERE id IN (SELECT id FROM login_attempts WHERE expires_ns <= NOW LIMIT ?)",
			"DELETE FROM login_throttle_keys WHERE key_hash IN (SELECT key_hash FROM login_throttle_keys WHERE expires_ns <= NOW LIMIT ?)",
		}
		// BEGIN IMMEDIATE already holds the one write lock.
		q.victims = "SELECT key_hash FROM login_throttle_keys WHERE key_hash >= ? AND key_hash < ? ORDER BY expires_ns LIMIT ?"
	}
	for _, p := range []*string{&q.held, &q.lockKey, &q.newest, &q.reserve, &q.dropStale, &q.prune[0], &q.prune[1]} {
		*p = strings.ReplaceAll(*p, "NOW", now)
	}
	return q
}

// keyKind is a kind of key as the throttle stores it: a letter that starts
// its stored keys (not a hex digit, so no stored key of one kind falls in
// another's range). Each kind has its own cap, so a flood of one kind
// evicts only keys of that kind.
type keyKind struct {
	kind ports.ThrottleKind
	tag  byte
}

// keyKinds are the kinds the throttle keeps, one for each of
// ports.ThrottleKinds (a test holds them together).
var keyKinds = [...]keyKind{{ports.ThrottleUser, 'U'}, {ports.ThrottleAddr, 'A'}}

// kindOf is the stored kind of k.
func kindOf(k ports.ThrottleKind) (keyKind, bool) {
	for _, x := range keyKinds {
		if x.kind == k {
			return x, true
		}
	}
	return keyKind{}, false
}

// throttleKey is the stored form of a key: the letter of its kind (see
// keyKinds), then 63 hex digits of the SHA-256 of the kind's name, a colon
// and the key's value ("user:acme", the form every release has stored), so
// any key is compared byte for byte in 64 characters and each kind's rows
// are one range of the primary key.
func throttleKey(key ports.ThrottleKey) (string, error) {
	k, ok := kindOf(key.Kind)
	if !ok {
		return "", fmt.Errorf("throttle: unknown kind %d", key.Kind)
	}
	sum := sha256.Sum256([]byte(key.Kind.String() + ":" + key.Value))
	return string(k.tag) + hex.EncodeToString(sum[:])[:63], nil
}

// checkedKey is throttleKey(key) for Take and Check, once their limit
// and window are checked.
func checkedKey(key ports.ThrottleKey, limit int, window time.Duration) (string, error) {
	if limit <= 0 || window <= 0 {
		return "", fmt.Errorf("throttle: limit %d and window %s must be positive", limit, window)
	}
	return throttleKey(key)
}

// kindIndex is the index in keyKinds of a stored key's tag.
func kindIndex(tag byte) int {
	for i, k := range keyKinds {
		if k.tag == tag {
			return i
		}
	}
	return 0 // unreachable: every stored key was made by throttleKey
}
