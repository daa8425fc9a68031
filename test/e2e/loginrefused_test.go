package e2e

import (
	"testing"

	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/test/testkit"
)

// TestRefusedLoginCostsTwoStatements (MariaDB, throttle in the database):
// a login refused because a budget is spent runs at most two statements
// on the throttle's connections — no write, no transaction — whether the
// user name's budget is spent (the address has room: the fourth round's
// finding, 9 statements with 2 inserts, a delete and a commit) or the
// address's. Statements are counted by a proxy that records every one
// sent to the server.
func TestRefusedLoginCostsTwoStatements(t *testing.T) {
	t.Parallel()
	in, stmts := startLoggedThrottle(t, func(c *config.Config) {
		c.Throttle.UserFailures, c.Throttle.AddrFailures = 3, 8
	})

	// throttleStatements counts the statements sent so far on the
	// connections that carried a throttle statement.
	throttleStatements := func() (n int) {
		for _, conn := range stmts.Connections() {
			for _, q := range conn {
				if namesThrottleTable(q) {
					n += len(conn)
					break
				}
			}
		}
		return n
	}
	refusedCosts := func(what, user, pw string) {
		t.Helper()
		before := throttleStatements()
		r := testkit.Exchange(t, in, user, pw, nil)
		n := throttleStatements() - before
		if r.Status != 429 {
			t.Fatalf("%s: %d %s, want 429", what, r.Status, r.Raw)
		}
		if n > 2 {
			t.Errorf("%s: %d statements on the throttle's connections, want at most 2", what, n)
		}
		t.Logf("%s: %d statements", what, n)
	}
	for range 3 {
		if r := testkit.Exchange(t, in, testkit.Partner, "guess", nil); r.Status != 400 {
			t.Fatalf("wrong password: %d %s", r.Status, r.Raw)
		}
	}
	refusedCosts("the user's budget spent", testkit.Partner, "guess")
	refusedCosts("the user's budget spent, the right password", testkit.Partner, testkit.Password)
	for i := range 5 {
		if r := testkit.Exchange(t, in, "nobody-"+string(rune('a'+i)), "guess", nil); r.Status != 400 {
			t.Fatalf("unknown user %d: %d %s", i, r.Status, r.Raw)
		}
	}
	refusedCosts("the address's budget spent", "nobody-z", "guess")
}
