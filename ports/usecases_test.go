package ports_test

import (
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
	"github.com/lender/disbursementd/test/fakes"
	"github.com/lender/disbursementd/test/fixture"
)

// The use cases as the tests build them, each through its constructor,
// with the numbers in one place.

// reportsOptions are the idempotency bounds the tests run under: short
// ones, so that waiting duplicates answer quickly.
func reportsOptions() ports.ReportsOptions {
	return ports.ReportsOptions{KeyTTL: 24 * time.Hour, Wait: 2 * time.Second, Poll: time.Millisecond, Stale: 4 * time.Second}
}

// newReports is the reports use case on fakes, under reportsOptions.
func newReports(t testing.TB, store *fakes.ReportStore, up *fakes.Uploads, clock ports.Clock) *ports.Reports {
	t.Helper()
	return newReportsWith(t, store, up, clock, reportsOptions())
}

// newReportsWith is newReports under o.
func newReportsWith(t testing.TB, store *fakes.ReportStore, up *fakes.Uploads, clock ports.Clock, o ports.ReportsOptions) *ports.Reports {
	t.Helper()
	r, err := ports.NewReports(domain.DefaultCatalogue(), fixture.FileRules(), store, up, clock, o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// newUsers is the users use case on the fixture's fakes.
func newUsers(t testing.TB, f *authFixture) *ports.Users {
	t.Helper()
	u, err := ports.NewUsers(f.users, f.hasher, f.clock)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// newLogin is the built-in login on users, under the tests' token policy.
func newLogin(t testing.TB, users ports.UserStore, hasher ports.PasswordHasher, keys *fakes.Keys, clock ports.Clock) *ports.Login {
	t.Helper()
	l, err := ports.NewLogin(users, hasher, keys, fixture.TokenPolicy(), clock)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// authOptions are the login budgets the tests run under (the
// configuration's defaults), with the users checked on every request.
func authOptions(f *authFixture) ports.AuthOptions {
	return ports.AuthOptions{Throttle: f.throttle, Users: f.users,
		PerUser: ports.ThrottleRule{Limit: 10, Window: 15 * time.Minute},
		PerAddr: ports.ThrottleRule{Limit: 30, Window: time.Minute}}
}

// newAuthWith is the Auth of the fixture's built-in login under o.
func newAuthWith(t testing.TB, f *authFixture, o ports.AuthOptions) *ports.Auth {
	t.Helper()
	a, err := ports.NewAuth(newLogin(t, f.users, f.hasher, f.keys, f.clock), f.keys, fixture.TokenPolicy(), f.clock, o)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestConstructorsRefuseWhatTheyNeed: each use case refuses, when it is
// built, a missing dependency or bounds it cannot run under, instead of
// failing at its first request.
func TestConstructorsRefuseWhatTheyNeed(t *testing.T) {
	clock := fakes.NewClock(t0)
	store, up := fixtures(clock)
	users, hasher, keys := fakes.NewUsers(), &fakes.Hasher{}, fakes.NewKeys()
	cat, rules, policy := domain.DefaultCatalogue(), fixture.FileRules(), fixture.TokenPolicy()
	login := newLogin(t, users, hasher, keys, clock)
	reports := func(mutate func(*ports.ReportsOptions)) func() error {
		return func() error {
			o := reportsOptions()
			mutate(&o)
			_, err := ports.NewReports(cat, rules, store, up, clock, o)
			return err
		}
	}
	auth := func(o ports.AuthOptions) func() error {
		return func() error { _, err := ports.NewAuth(login, keys, policy, clock, o); return err }
	}
	throttle := &fakeThrottle{}
	for name, build := range map[string]func() error{
		"reports without a catalogue": func() error { _, err := ports.NewReports(nil, rules, store, up, clock, reportsOptions()); return err },
		"reports without file rules": func() error {
			_, err := ports.NewReports(cat, domain.FileRules{}, store, up, clock, reportsOptions())
			return err
		},
		"reports without a store":      func() error { _, err := ports.NewReports(cat, rules, nil, up, clock, reportsOptions()); return err },
		"reports without uploads":      func() error { _, err := ports.NewReports(cat, rules, store, nil, clock, reportsOptions()); return err },
		"reports without a clock":      func() error { _, err := ports.NewReports(cat, rules, store, up, nil, reportsOptions()); return err },
		"reports without a key TTL":    reports(func(o *ports.ReportsOptions) { o.KeyTTL = 0 }),
		"reports with keys kept < 24h": reports(func(o *ports.ReportsOptions) { o.KeyTTL = domain.MinKeyTTL - time.Second }),
		"reports without a poll":       reports(func(o *ports.ReportsOptions) { o.Poll = 0 }),
		"reports without stale bound":  reports(func(o *ports.ReportsOptions) { o.Stale = 0 }),
		"reports with a negative wait": reports(func(o *ports.ReportsOptions) { o.Wait = -time.Second }),
		"auth without an exchange":     func() error { _, err := ports.NewAuth(nil, keys, policy, clock, ports.AuthOptions{}); return err },
		"auth without a verifier":      func() error { _, err := ports.NewAuth(login, nil, policy, clock, ports.AuthOptions{}); return err },
		"auth without a clock":         func() error { _, err := ports.NewAuth(login, keys, policy, nil, ports.AuthOptions{}); return err },
		"auth without a policy": func() error {
			_, err := ports.NewAuth(login, keys, domain.TokenPolicy{}, clock, ports.AuthOptions{})
			return err
		},
		"auth with a budget and no throttle": auth(ports.AuthOptions{PerUser: ports.ThrottleRule{Limit: 1, Window: time.Minute}}),
		"auth with a budget and no window":   auth(ports.AuthOptions{Throttle: throttle, PerAddr: ports.ThrottleRule{Limit: 1}}),
		"auth with a staleness and no cache": auth(ports.AuthOptions{Users: users, Staleness: time.Second}),
		"login without users":                func() error { _, err := ports.NewLogin(nil, hasher, keys, policy, clock); return err },
		"login without hasher":               func() error { _, err := ports.NewLogin(users, nil, keys, policy, clock); return err },
		"login without issuer":               func() error { _, err := ports.NewLogin(users, hasher, nil, policy, clock); return err },
		"login without policy":               func() error { _, err := ports.NewLogin(users, hasher, keys, domain.TokenPolicy{}, clock); return err },
		"login with a policy past 24h": func() error {
			long := policy
			long.Lifetime = domain.MaxTokenLifetime + time.Second
			_, err := ports.NewLogin(users, hasher, keys, long, clock)
			return err
		},
		"auth with a policy past 24h": func() error {
			long := policy
			long.Lifetime = domain.MaxTokenLifetime + time.Second
			_, err := ports.NewAuth(login, keys, long, clock, ports.AuthOptions{})
			return err
		},
		"users without a store": func() error { _, err := ports.NewUsers(nil, hasher, clock); return err },
		"users without hasher":  func() error { _, err := ports.NewUsers(users, nil, clock); return err },
		"users without a clock": func() error { _, err := ports.NewUsers(users, hasher, nil); return err },
	} {
		if build() == nil {
			t.Errorf("%s: built", name)
		}
	}
	if _, err := ports.NewAuth(login, keys, policy, clock, ports.AuthOptions{}); err != nil {
		t.Errorf("auth with no options (no budgets, no caches): %v", err)
	}
}

// fakeThrottle is a ports.LoginThrottle that is never asked.
type fakeThrottle struct{ ports.LoginThrottle }
