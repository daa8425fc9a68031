// Package passwords hashes and checks passwords with bcrypt. Hashes made by
// PHP's password_hash ($2y$) verify as they are.
package passwords

import (
	"fmt"

	"golang.org/x/crypto/bcrypt"

	"github.com/lender/disbursementd/ports"
)

// Bcrypt is a ports.PasswordHasher.
type Bcrypt struct {
	Cost  int
	dummy string
}

var _ ports.PasswordHasher = (*Bcrypt)(nil)

// New returns a hasher of the given cost (bcrypt.DefaultCost when 0).
func New(cost int) (*Bcrypt, error) {
	if cost == 0 {
		cost = bcrypt.DefaultCost
	}
	dummy, err := bcrypt.GenerateFromPassword([]byte("not-a-user-password"), cost)
	if err != nil {
		return nil, fmt.Errorf("bcrypt: %w", err)
	}
	return &Bcrypt{Cost: cost, dummy: string(dummy)}, nil
}

// Hash returns the bcrypt hash of password.
func (b *Bcrypt) Hash(password string) (string, error) {
	h, err := bcrypt.GenerateFromPassword([]byte(password), b.Cost)
	if err != nil {
		return "", fmt.Errorf("bcrypt: %w", err)
	}
	return string(h), nil
}

// Compare returns nil when password matches hash.
func (b *Bcrypt) Compare(hash, password string) error {
	return bcrypt.CompareHashAndPassword([]byte(hash), []byte(password))
}

// NeedsRehash reports whether hash is not a bcrypt hash of b.Cost.
func (b *Bcrypt) NeedsRehash(hash string) bool {
	cost, err := bcrypt.Cost([]byte(hash))
	return err != nil || cost != b.Cost
}

// Dummy returns a hash of the same cost for unknown users.
func (b *Bcrypt) Dummy() string { return b.dummy }
