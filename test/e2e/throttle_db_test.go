package e2e

import (
	"strings"
	"testing"

	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/test/storetest"
	"github.com/lender/disbursementd/test/testkit"
)

// startLoggedThrottle starts an instance on a new database of the test
// MariaDB (it skips or fails without one, as ServerDSN says), with the
// login throttle in the database and the partner's user, behind a proxy
// that logs every statement sent to the server; more, when not nil,
// changes the configuration further.
func startLoggedThrottle(t *testing.T, more func(*config.Config)) (*testkit.Instance, *storetest.StatementLog) {
	t.Helper()
	storetest.ServerDSN(t)
	stmts, dsn := storetest.MustStatementLog(t, storetest.MustCreateDatabase(t))
	in := testkit.MustStart(t, func(c *config.Config) {
		c.Store.Driver, c.Store.DSN, c.Throttle.Backend = "mysql", dsn, "database"
		if more != nil {
			more(c)
		}
	})
	in.AddUser(t, testkit.Partner, testkit.Nit, testkit.Password)
	return in, stmts
}

// namesThrottleTable says whether statement q names a table of the login
// throttle's.
func namesThrottleTable(q string) bool {
	return strings.Contains(q, "login_attempts") || strings.Contains(q, "login_throttle_keys")
}
