package process

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/lender/disbursementd/test/storetest"
	"github.com/lender/disbursementd/test/testkit"
)

// purgeRig is the real binary on driver's store (SQLite in its own
// directory, or a new database of the test MariaDB) with one partner,
// for the purge tests.
type purgeRig struct {
	driver, dsn, dir string
	env              []string
	p                *testkit.Process
	in               *testkit.Instance
	tok              string
}

// startPurgeRig starts a purgeRig and waits until it is ready; on MySQL
// it skips or fails without a test server, as ServerDSN says.
func startPurgeRig(t *testing.T, driver string) *purgeRig {
	t.Helper()
	r := &purgeRig{driver: driver, dir: t.TempDir(), env: testkit.BaseEnv()}
	if driver == "mysql" {
		r.dsn = storetest.MustCreateDatabase(t)
		r.env = append(r.env, "DISB_STORE_DRIVER=mysql", "DISB_STORE_DSN="+r.dsn)
	} else {
		r.dsn = filepath.Join(r.dir, "data", "disbursement.db")
	}
	if out, err := testkit.CLI(t, r.dir, r.env, testkit.Password+"\n", "users", "add", "--user", testkit.Partner, "--nit", testkit.Nit); err != nil {
		t.Fatalf("users add: %v\n%s", err, out)
	}
	r.p = testkit.StartProcess(t, r.dir, r.env)
	r.p.MustWaitReady(t)
	r.in = &testkit.Instance{URL: r.p.URL}
	r.tok = r.in.Token(t, testkit.Partner, testkit.Password)
	return r
}

// age moves the receipt time of the reports ids back 2,000 days in the
// database (no test waits years), past a retention of 1825d.
func (r *purgeRig) age(t *testing.T, ids ...int64) {
	t.Helper()
	db := testkit.MustSQL(t, r.driver, r.dsn)
	longAgo := time.Now().UTC().Add(-2000 * 24 * time.Hour)
	for _, id := range ids {
		if _, err := db.Exec("UPDATE partner_disbursement_staging SET received_at = ? WHERE id = ?", longAgo, id); err != nil {
			t.Fatal(err)
		}
	}
}
