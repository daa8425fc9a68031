package storetest

import (
	"strings"
	"testing"

	mysqldrv "github.com/go-sql-driver/mysql"
)

// NodeList is a DSN for dsns' database (DSNs of one database on the test
// cluster's nodes, as MustCreateGaleraDatabase returns) whose tcp(...)
// lists every node, node first and the others in order: a replica that
// prefers node and moves to the next that serves (the operator guide's
// list of nodes).
func NodeList(tb testing.TB, dsns []string, node int) string {
	tb.Helper()
	var cfg *mysqldrv.Config
	addrs := make([]string, 0, len(dsns))
	for k := range dsns {
		c, err := mysqldrv.ParseDSN(dsns[(node+k)%len(dsns)])
		if err != nil {
			tb.Fatalf("%s: %v", EnvGaleraDSNs, err)
		}
		if cfg == nil {
			cfg = c
		}
		addrs = append(addrs, c.Addr)
	}
	cfg.Addr = strings.Join(addrs, ",")
	return cfg.FormatDSN()
}

// GaleraListHarness is three replicas on the test cluster, each given
// the list of every node, its own first: each writes to its own node
// through the store's node chooser.
func GaleraListHarness(tb testing.TB) Harness {
	dsns := MustCreateGaleraDatabase(tb)
	lists := make([]string, len(dsns))
	for i := range dsns {
		lists[i] = NodeList(tb, dsns, i)
	}
	return replicaHarness(tb, MustOpenReplicas(tb, lists), dsns[0])
}
