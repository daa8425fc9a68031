package ports

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/lender/disbursementd/domain"
)

// Auth is the use case of access tokens: a partner's credentials in, a
// token out (throttled), and a token in, the partner it speaks for out.
type Auth struct {
	exchanger CredentialExchange
	verifier  TokenVerifier
	policy    domain.TokenPolicy
	clock     Clock
	o         AuthOptions
}

// AuthOptions are what Auth may use besides its exchange, verifier, policy
// and clock; each may be left out.
type AuthOptions struct {
	// Throttle keeps the login budgets: PerUser failed attempts per user
	// name, PerAddr per client address. A rule of Limit 0 is off; a rule
	// that is on needs Throttle.
	Throttle         LoginThrottle
	PerUser, PerAddr ThrottleRule
	// Users refuses tokens of deactivated users when the store knows them;
	// Statuses caches its answers for at most Staleness (0: no caching).
	Users     UserStore
	Statuses  UserStatusCache
	Staleness time.Duration
	// Tokens skips RSA verification for tokens verified before.
	Tokens TokenCache
}

// NewAuth returns the use case on exchanger (the configured login), the
// verifier of tokens, the claim rules and the clock. It refuses a missing
// one, a policy that domain.TokenPolicy.Validate refuses, and options that contradict each other: a budget on without a
// throttle or without a window, a staleness without a cache of user
// statuses, a cache without the user store.
func NewAuth(exchanger CredentialExchange, verifier TokenVerifier, policy domain.TokenPolicy, clock Clock, o AuthOptions) (*Auth, error) {
	if exchanger == nil || verifier == nil || clock == nil {
		return nil, errors.New("ports: NewAuth needs a credential exchange, a token verifier and a clock")
	}
	if err := policy.Validate(); err != nil {
		return nil, fmt.Errorf("ports: NewAuth: %w", err)
	}
	for _, r := range []ThrottleRule{o.PerUser, o.PerAddr} {
		if r.Limit > 0 && (o.Throttle == nil || r.Window <= 0) {
			return nil, fmt.Errorf("ports: NewAuth: a budget of %d needs a throttle and a window above 0 (%s)", r.Limit, r.Window)
		}
	}
	if o.Staleness > 0 && o.Statuses == nil || o.Statuses != nil && o.Users == nil {
		return nil, errors.New("ports: NewAuth: a staleness needs a user status cache, and the cache the user store")
	}
	return &Auth{exchanger: exchanger, verifier: verifier, policy: policy, clock: clock, o: o}, nil
}

// LoginAttempt is one credential exchange, from a client address. Raw,
// when set, is a second reading of the same credentials (HTTP Basic as
// sent, without RFC 6749 §2.3.1's form-urldecoding, from a client library
// that did not encode '+' or '%'): it is checked only when User and
// Password are refused, within the same attempt and the same throttle
// slots (contract §10).
type LoginAttempt struct {
	User, Password, Addr string
	Raw                  *Credentials
}

// Credentials are a user name and a password.
type Credentials struct {
	User, Password string
}

// pairs are the credential pairs of the attempt to check, in order: the
// first, then Raw when it differs; a pair empty or over its limits is
// left out (it cannot match and costs no password work).
func (at LoginAttempt) pairs() []Credentials {
	out := []Credentials{{at.User, at.Password}}
	if at.Raw != nil && *at.Raw != (Credentials{at.User, at.Password}) {
		out = append(out, *at.Raw)
	}
	return slices.DeleteFunc(out, func(c Credentials) bool {
		return !domain.LoginFits(c.User, c.Password)
	})
}

// Issued is the outcome of a login attempt.
type Issued struct {
	Token     string
	Claims    domain.Claims
	ExpiresIn time.Duration // the token's lifetime (exp − iat)
	// LogUser names the user for logs: the name itself only when it is a
	// known user; otherwise (it may be a password typed in the wrong
	// field) its domain.HashRef.
	LogUser string
}

// errKnownUser marks a refusal of a user the login knows (wrong password,
// inactive), so the name may be logged.
var errKnownUser = errors.New("known user")

// Token exchanges credentials for a token. Each attempt takes its slot of
// the address's and the user name's budget before the password is
// checked, so concurrency cannot go past a budget; a success or an outage
// gives the slots back. A user name or password over its limit is refused
// without any password work and counts against the address only. Every
// budget the attempt would take is read before any is written: an attempt
// refused for a spent budget costs the throttle those reads alone, two
// (three when a raw pair names another user; contract §7, "Failed logins
// cost the store little"). It never
// hands out a token that it would itself refuse: an upstream token that
// does not verify here is ErrUnavailable (the operator must fix the key
// trust). When the credentials are refused and at.Raw is another pair,
// that pair is checked too, in the same slots. Errors:
// domain.ErrInvalidClient, domain.ErrThrottled (with RetryAfter),
// domain.ErrUnavailable.
func (a *Auth) Token(ctx context.Context, at LoginAttempt) (Issued, error) {
	out := Issued{LogUser: domain.HashRef(at.User)}
	invalid := domain.InvalidClient()
	now := a.clock.Now()
	addr := ThrottleKey{ThrottleAddr, addrKey(at.Addr)}
	pairs := at.pairs()
	// One slot per budget for the whole attempt: the address's once, and
	// each user name's once (a raw pair of another name takes that
	// name's too, so no name's budget is passed by). Each is read before
	// any is taken.
	var names []string
	for i, c := range pairs {
		if i == 0 || c.User != pairs[0].User {
			names = append(names, c.User)
		}
	}
	if err := a.check(ctx, addr, "address", a.o.PerAddr, now); err != nil {
		return out, err
	}
	for _, name := range names {
		if err := a.check(ctx, ThrottleKey{ThrottleUser, name}, "user", a.o.PerUser, now); err != nil {
			return out, err
		}
	}
	addrSlot, err := a.take(ctx, addr, "address", a.o.PerAddr, now)
	if err != nil {
		return out, err
	}
	if len(pairs) == 0 {
		return out, invalid.WithCause(errors.New("user name or password empty or over its limit"))
	}
	slots := []Slot{addrSlot}
	release := func() {
		for _, r := range slots {
			a.cancel(ctx, r)
		}
	}
	for _, name := range names {
		userSlot, err := a.take(ctx, ThrottleKey{ThrottleUser, name}, "user", a.o.PerUser, now)
		if err != nil {
			release()
			return out, err
		}
		slots = append(slots, userSlot)
	}
	// One comparison slot for every comparison of the attempt: busy now,
	// before any, or never (SlotHolder).
	if h, ok := a.exchanger.(SlotHolder); ok {
		held, free, err := h.Hold(ctx)
		if err != nil {
			release() // not the partner's failure, and no work done: it does not count
			return out, err
		}
		defer free()
		ctx = held
	}
	var tok string
	for _, c := range pairs {
		tok, err = a.exchanger.Exchange(ctx, c.User, c.Password)
		if err == nil {
			out.LogUser = c.User
			break
		}
		if errors.Is(err, errKnownUser) {
			out.LogUser = c.User
		}
		if !domain.IsKind(err, domain.ErrInvalidClient) {
			// Not the partner's failure (the user store down; a busy
			// hasher only before any comparison, above): it does not count.
			release()
			return out, err
		}
	}
	if err != nil {
		return out, err
	}
	release()
	claims, err := a.verify(tok, a.clock.Now())
	if err != nil {
		return out, domain.Unavailable("login unavailable").WithCause(fmt.Errorf("login upstream issued a token this service does not accept: %w", err))
	}
	out.Token, out.Claims, out.ExpiresIn = tok, claims, claims.Expiry.Sub(claims.IssuedAt)
	return out, nil
}

// Authenticate verifies a token and returns the principal it speaks for.
// A token of a user the store knows is refused when the user is inactive
// or changed its password after the token was issued (TokenPredates), or
// when the token predates a rotation whose overlap has ended, as
// the store said within Staleness. Errors are of kind domain.ErrInvalidToken, or domain.ErrUnavailable when
// the user store cannot answer.
func (a *Auth) Authenticate(ctx context.Context, tok string) (Principal, error) {
	now := a.clock.Now()
	claims, err := a.verify(tok, now)
	if err != nil {
		return Principal{}, err
	}
	if a.o.Users != nil {
		st, err := a.userStatus(ctx, claims, now)
		switch {
		case err != nil:
			return Principal{}, domain.Unavailable(domain.MsgStoreFailed).WithCause(err)
		case !st.Known:
			// A user of an external login: the store cannot tell.
		case !st.Active:
			return Principal{}, domain.InvalidToken("user_inactive")
		case domain.TokenPredates(claims, st.PasswordChanged):
			return Principal{}, domain.InvalidToken("password_changed")
		case domain.TokenRefused(claims, st.Tokens(), now):
			return Principal{}, domain.InvalidToken("secret_rotated")
		}
	}
	return Principal{User: claims.Subject, NIT: claims.NIT, TokenID: claims.ID}, nil
}

// verify checks a token, from the cache when it was verified before; the
// claim rules apply on every use.
func (a *Auth) verify(tok string, now time.Time) (domain.Claims, error) {
	var claims domain.Claims
	cached := false
	if a.o.Tokens != nil {
		claims, cached = a.o.Tokens.Get(tok)
	}
	if !cached {
		var err error
		if claims, err = a.verifier.Verify(tok); err != nil {
			return domain.Claims{}, err
		}
	}
	if err := a.policy.Check(claims, now); err != nil {
		return domain.Claims{}, err
	}
	if !cached && a.o.Tokens != nil {
		a.o.Tokens.Put(tok, claims)
	}
	return claims, nil
}

// userStatus says whether the store knows the token's user and whether it
// is active, from the cache when fresh enough. A cached "inactive" older
// than the token itself is read again: the token was issued after it, so
// the user may have been activated since.
func (a *Auth) userStatus(ctx context.Context, c domain.Claims, now time.Time) (UserStatus, error) {
	if a.o.Statuses != nil && a.o.Staleness > 0 {
		if s, ok := a.o.Statuses.Get(c.Subject); ok && now.Sub(s.At) < a.o.Staleness &&
			(s.Active || !s.Known || c.IssuedAt.Before(s.At.Truncate(time.Second))) {
			return s, nil
		}
	}
	u, err := a.o.Users.GetUser(ctx, c.Subject)
	s := UserStatus{Known: true, Active: u.Active, PasswordChanged: u.PasswordChangedAt,
		RotatedAt: u.RotatedAt, PreviousUntil: u.PreviousUntil, At: now}
	switch {
	case errors.Is(err, domain.ErrNotFound):
		s = UserStatus{At: now}
	case err != nil:
		return UserStatus{}, err
	}
	if a.o.Statuses != nil && a.o.Staleness > 0 {
		a.o.Statuses.Put(c.Subject, s)
	}
	return s, nil
}
