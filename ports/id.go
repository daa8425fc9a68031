package ports

import (
	"crypto/rand"
	"encoding/hex"
)

// newID returns a random 128-bit identifier in hex (token ids, record
// nonces).
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b[:])
}
