package domain

import (
	"crypto/sha256"
	"encoding/hex"
)

// This file is compat100, the domain's part of the compatibility with
// release 1.0.0 (ports/compat100.go has the use case's). It is removed in
// 2.0.0 (CHANGELOG.md, "Deprecated"), when no record of 1.0.0 can be
// alive: each lives idempotency.ttl after the upgrade to 1.1.0.

// KeyPending is the state 1.0.0 wrote a record in before its report was
// stored (a pending record, written first). 1.1.0 writes a record and its report in
// one commit, always KeyDone, so a pending record is 1.0.0's: one that
// never completed is stale after ReportsOptions.Stale, and the sweep
// reports and removes it.
const KeyPending KeyState = "pending"

// Compat100KeyHash is the key hash version 1.0.0 gave a submission without
// an Idempotency-Key: the hash of its raw body's hex SHA-256. Records made
// so live until their TTL ends after an upgrade; a retry of their report
// must still find them.
func Compat100KeyHash(bodySHA256 string) string {
	h := sha256.Sum256([]byte("body:" + bodySHA256))
	return hex.EncodeToString(h[:])
}
