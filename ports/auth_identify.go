package ports

import (
	"context"

	"github.com/lender/disbursementd/domain"
)

// Identify tells who a rotation request (RotateAttempt) speaks for,
// throttled as a login: current credentials go through Token (the same
// budgets, the same refusals); a Bearer token takes a slot of the
// address's budget before it is checked, and a token that is refused
// keeps it (a failure, as a wrong password is). Errors as Token's and
// Authenticate's.
func (a *Auth) Identify(ctx context.Context, at RotateAttempt) (string, error) {
	if at.Basic != nil {
		issued, err := a.Token(ctx, LoginAttempt{User: at.Basic.User, Password: at.Basic.Password, Addr: at.Addr, Raw: at.Raw})
		if err != nil {
			return "", err
		}
		return issued.Claims.Subject, nil
	}
	now := a.clock.Now()
	addr := ThrottleKey{ThrottleAddr, addrKey(at.Addr)}
	if err := a.check(ctx, addr, "address", a.o.PerAddr, now); err != nil {
		return "", err
	}
	slot, err := a.take(ctx, addr, "address", a.o.PerAddr, now)
	if err != nil {
		return "", err
	}
	p, err := a.Authenticate(ctx, at.Token)
	if err != nil {
		if domain.IsKind(err, domain.ErrUnavailable) {
			a.cancel(ctx, slot) // not the partner's failure
		}
		return "", err
	}
	a.cancel(ctx, slot)
	return p.User, nil
}
