package httpapi

import (
	"strings"

	"github.com/lender/disbursementd/ports"
)

// partnerOf is the key of the shares a request draws on (the bodies being
// received, the bytes in flight, the look-up slots and rate): the partner,
// that is its NIT, not the user name. A partner has several user names
// (one per system or person is normal), and a share per name let a
// handful of names add up to every place (issue 32, findings 1 and 5). The
// NIT is keyed by its digits before the check digit, so "900123456-8" and
// "900.123.456" are one partner. A token without a NIT (an external login
// may issue one) is keyed by its user name, apart from every NIT.
func partnerOf(p ports.Principal) string {
	base, _, _ := strings.Cut(p.NIT, "-")
	digits := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, base)
	if digits == "" {
		return "user:" + p.User
	}
	return "nit:" + digits
}
