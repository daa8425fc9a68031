package storetest

import (
	"context"
	"database/sql"
	"testing"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"
)

// TestGaleraDatabaseOnEveryNode: the DSNs MustCreateGaleraDatabase
// returns open on every node at once, by a plain connection naming the
// database (no causal read: the handshake's USE comes before any query
// could wait), even while node 2 holds its DDL back for half a second
// (BACKUP STAGE BLOCK_DDL holds its applier's CREATE DATABASE as a busy
// node would; CI on a564ecb met node 2 answering 1049 right after the
// node-killing test ended). Fails without the wait: "Unknown database".
func TestGaleraDatabaseOnEveryNode(t *testing.T) {
	t.Parallel()
	nodes := GaleraDSNs(t)
	c, err := mysqldrv.ParseDSN(nodes[1])
	if err != nil {
		t.Fatal(err)
	}
	admin, err := sql.Open("mysql", c.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	ctx := context.Background()
	for try := 1; try <= 2; try++ {
		conn, err := admin.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{"BACKUP STAGE START", "BACKUP STAGE BLOCK_DDL"} {
			if _, err := conn.ExecContext(ctx, q); err != nil {
				t.Fatalf("node 2: %s: %v", q, err)
			}
		}
		released := make(chan struct{})
		time.AfterFunc(500*time.Millisecond, func() {
			_, _ = conn.ExecContext(ctx, "BACKUP STAGE END")
			_ = conn.Close()
			close(released)
		})
		start := time.Now()
		dsns := MustCreateGaleraDatabase(t)
		took := time.Since(start)
		for n, dsn := range dsns {
			c, err := mysqldrv.ParseDSN(dsn)
			if err != nil {
				t.Fatal(err)
			}
			delete(c.Params, CausalReads)
			db, err := sql.Open("mysql", c.FormatDSN())
			if err != nil {
				t.Fatal(err)
			}
			err = db.Ping()
			_ = db.Close()
			if err != nil {
				t.Fatalf("try %d, node %d, %s after the database was asked for (node 2's DDL held 500ms): %v", try, n+1, took.Round(time.Millisecond), err)
			}
		}
		<-released
	}
}
