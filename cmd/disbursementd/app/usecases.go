package app

import (
	"fmt"
	"time"

	"github.com/lender/disbursementd/adapters/httpapi"
	"github.com/lender/disbursementd/adapters/memstate"
	"github.com/lender/disbursementd/adapters/metrics"
	"github.com/lender/disbursementd/adapters/passwords"
	"github.com/lender/disbursementd/adapters/upstream"
	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// duplicatePoll is how often a duplicate waiting for the first of its key
// looks again (within idempotency.wait).
const duplicatePoll = 20 * time.Millisecond

// useCases are the service's use cases, each built by its constructor on
// what wire opened.
type useCases struct {
	reports *ports.Reports
	queries *ports.ReportQueries
	// partners issues tokens through the configured login (the partner
	// endpoint's GET, /v1/token) and checks every token; builtin serves
	// /auth/login with the built-in login.
	partners, builtin *ports.Auth
	sweep             *ports.Sweep
	// login is the built-in login, hasher its hasher (Prepare runs once
	// the store is ready).
	login  *ports.Login
	hasher *passwords.Bcrypt
	// rotation serves POST /v1/credentials/rotate; nil when login.url
	// names another login (its users are not kept here).
	rotation *ports.Rotation
}

// rotator is the rotation as the HTTP adapter takes it: nil (no route)
// when there is none.
func (uc useCases) rotator() httpapi.SecretRotator {
	if uc.rotation == nil {
		return nil
	}
	return uc.rotation
}

// useCases builds the use cases of the configuration on the store, the
// upload store, the keys and throttle.
func (m *Main) useCases(throttle ports.LoginThrottle, mx *metrics.Metrics) (useCases, error) {
	cfg := m.Config
	var uc useCases
	hasher, err := Hasher(cfg)
	if err != nil {
		return uc, err
	}
	policy := Policy(cfg)
	login, err := ports.NewLogin(m.Store, hasher, m.Keys, policy, m.Clock)
	if err != nil {
		return uc, err
	}
	uc.login, uc.hasher = login, hasher
	var exchanger ports.CredentialExchange = login
	if cfg.Login.URL != "" {
		up, err := upstream.New(cfg.Login.URL, cfg.Login.Timeout)
		if err != nil {
			return uc, fmt.Errorf("login: %w", err)
		}
		up.Observe = mx.ObserveUpstream
		exchanger = up
	}
	opts, err := m.authOptions(throttle)
	if err != nil {
		return uc, err
	}
	if uc.partners, err = ports.NewAuth(exchanger, m.Keys, policy, m.Clock, opts); err != nil {
		return uc, err
	}
	if uc.builtin, err = ports.NewAuth(login, m.Keys, policy, m.Clock, opts); err != nil {
		return uc, err
	}
	if cfg.Login.URL == "" {
		if uc.rotation, err = ports.NewRotation(uc.partners, m.Store, hasher, m.Clock, cfg.Auth.RotationOverlap); err != nil {
			return uc, err
		}
	}
	rules, err := FileRules(cfg)
	if err != nil {
		return uc, err
	}
	if uc.reports, err = ports.NewReports(domain.DefaultCatalogue(), rules, m.Store, m.Uploads, m.Clock, ports.ReportsOptions{
		KeyTTL: cfg.Idempotency.TTL, Wait: cfg.Idempotency.Wait, Poll: duplicatePoll, Stale: cfg.HTTP.StaleBound(),
		EventSlack: cfg.Events.EventSlack(),
	}); err != nil {
		return uc, err
	}
	if uc.queries, err = ports.NewReportQueries(m.Store); err != nil {
		return uc, err
	}
	uc.sweep, err = newSweep(cfg, m.Store, m.Uploads, m.Clock)
	return uc, err
}

// authOptions are the login budgets and the caches of the configuration,
// shared by both Auths (one budget per user name and per address,
// whichever endpoint is asked).
func (m *Main) authOptions(throttle ports.LoginThrottle) (ports.AuthOptions, error) {
	cfg := m.Config
	tokens, err := memstate.NewTokenCache(cfg.Auth.TokenCache())
	if err != nil {
		return ports.AuthOptions{}, fmt.Errorf("auth.token_cache_size: %w", err)
	}
	statuses, err := memstate.NewUserStatusCache(cfg.Auth.UserCacheSize)
	if err != nil {
		return ports.AuthOptions{}, fmt.Errorf("auth.user_cache_size: %w", err)
	}
	return ports.AuthOptions{Throttle: throttle,
		PerUser: ports.ThrottleRule{Limit: cfg.Throttle.UserFailures, Window: cfg.Throttle.UserWindow},
		PerAddr: ports.ThrottleRule{Limit: cfg.Throttle.AddrFailures, Window: cfg.Throttle.AddrWindow},
		Users:   m.Store, Statuses: statuses, Staleness: cfg.Auth.UserStaleness, Tokens: tokens}, nil
}

// Hasher is the password hasher of the configuration (auth.bcrypt_cost
// and the bounds on comparisons at once).
func Hasher(cfg *config.Config) (*passwords.Bcrypt, error) {
	h, err := passwords.New(cfg.Auth.BcryptCost, passwords.Options{MaxConcurrent: cfg.Auth.ConcurrentHashes(), Wait: cfg.Auth.HashWait})
	if err != nil {
		return nil, fmt.Errorf("auth: %w", err)
	}
	return h, nil
}

// Policy is the token policy of the configuration.
func Policy(cfg *config.Config) domain.TokenPolicy {
	return domain.TokenPolicy{Issuer: cfg.Auth.Issuer, Audience: cfg.Auth.Audience, Lifetime: cfg.Auth.TokenTTL, Leeway: cfg.Auth.Leeway}
}
