package e2e

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/test/storetest"
	"github.com/lender/disbursementd/test/testkit"
)

// TestReadyzOnAGaleraNodeOutsidePrimary: issue 32 finding 10. A replica
// whose Galera node leaves the Primary component (the node isolated from
// the other two: gmcast.isolate) still has its pings answered, but every
// read and write fails with 1047; /readyz says not ready, naming the
// store, within a few probes, and ready again once the node has rejoined
// and is Synced. It disturbs the shared test cluster's third node for a
// few seconds, so it holds the test cluster alone (HoldGaleraNodes) and
// does not run in parallel.
func TestReadyzOnAGaleraNodeOutsidePrimary(t *testing.T) { // not parallel: it isolates a node of the shared cluster
	storetest.HoldGaleraNodes(t)
	dsns := storetest.MustCreateGaleraDatabase(t)
	node := len(dsns) - 1
	in := testkit.MustStart(t, func(c *config.Config) { c.Store.Driver, c.Store.DSN = "mysql", dsns[node] })
	readyz := func() testkit.Reply { return testkit.Call(t, "GET", in.URL+"/readyz", nil, nil) }
	testkit.WaitFor(t, "/readyz 200 on a Synced node", 30*time.Second, func() bool { return readyz().Status == 200 })

	admin, err := sql.Open("mysql", storetest.GaleraDSNs(t)[node])
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	admin.SetMaxOpenConns(1) // one session: SHOW STATUS and the pings on the same one
	ctx := context.Background()
	status := func() string {
		var name, v string
		if err := admin.QueryRowContext(ctx, "SHOW STATUS LIKE 'wsrep_cluster_status'").Scan(&name, &v); err != nil {
			return err.Error()
		}
		return v
	}
	isolate := func(on string) {
		t.Helper()
		if _, err := admin.ExecContext(ctx, "SET GLOBAL wsrep_provider_options = 'gmcast.isolate="+on+"'"); err != nil {
			t.Fatalf("gmcast.isolate=%s: %v", on, err)
		}
	}
	rejoined := false
	rejoin := func() {
		if rejoined {
			return
		}
		rejoined = true
		isolate("0")
		testkit.WaitFor(t, "the node Synced again", 60*time.Second, func() bool {
			var name, v string
			err := admin.QueryRowContext(ctx, "SHOW STATUS LIKE 'wsrep_local_state_comment'").Scan(&name, &v)
			return err == nil && v == "Synced"
		})
	}
	isolate("1")
	defer rejoin()
	testkit.WaitFor(t, "the node outside the Primary component", 30*time.Second, func() bool { return status() == "non-Primary" })
	if err := admin.PingContext(ctx); err != nil {
		t.Fatalf("a ping to the isolated node: %v; the finding is that it is answered", err)
	}
	var r testkit.Reply
	testkit.WaitFor(t, "/readyz 503 on a node outside the Primary component", 15*time.Second, func() bool {
		r = readyz()
		return r.Status == 503
	})
	if checks, _ := r.Body["checks"].(map[string]any); checks["store"] != "fail" || !strings.Contains(string(r.Raw), "not_ready") {
		t.Errorf("/readyz answered %s; want the store check failing", r.Raw)
	}
	rejoin()
	testkit.WaitFor(t, "/readyz 200 once the node is Synced", 30*time.Second, func() bool { return readyz().Status == 200 })
}
