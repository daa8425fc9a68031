package app

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lender/disbursementd/domain"
)

// TestUsersHelpStatesTheDomainBounds: the users commands' help states the
// bounds the domain's rules apply (domain/bounds.go), so it cannot drift
// from them.
func TestUsersHelpStatesTheDomainBounds(t *testing.T) {
	password := fmt.Sprintf("%d to %d bytes", domain.MinPasswordLength, domain.MaxPasswordLength)
	for name, text := range map[string]string{
		"users":        usersHelp,
		"users add":    usersCommand.list["add"].help,
		"users passwd": usersCommand.list["passwd"].help,
	} {
		if !strings.Contains(text, password) {
			t.Errorf("%s help does not say %q", name, password)
		}
	}
	if !strings.Contains(usersHelp, "User names are "+domain.UserNameBound.En) {
		t.Errorf("users help does not say user names are %q", domain.UserNameBound.En)
	}
}
