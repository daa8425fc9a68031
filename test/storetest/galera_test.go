package storetest

import (
	"database/sql"
	"errors"
	"testing"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"
)

// TestWaitForDatabaseOnAnotherNode: waitForDatabase, which
// MustCreateGaleraDatabase runs for every node but the first, returns
// only once the node serves the database: created on node 1 300 ms after
// the wait began, it is there on node 2 by a plain connection naming it
// (no causal read: the handshake's USE comes before any query could
// wait) as soon as the wait returns. CI on a564ecb met node 2 answering
// 1049 to a store opened right after node 1 created the database. Fails
// when the wait does not wait: "Unknown database" (tried). Nothing on the
// cluster is paused: the node's own apply of the DDL is what is waited
// for, however long it takes.
func TestWaitForDatabaseOnAnotherNode(t *testing.T) {
	t.Parallel()
	nodes := GaleraDSNs(t)
	first, err := mysqldrv.ParseDSN(nodes[0])
	if err != nil {
		t.Fatal(err)
	}
	second, err := mysqldrv.ParseDSN(nodes[1])
	if err != nil {
		t.Fatal(err)
	}
	name := "disb_galera_wait_" + randomHex(6)
	admin, closeAdmin, err := adminDB(first)
	if err != nil {
		t.Fatal(err)
	}
	var createErr error
	created := make(chan struct{})
	time.AfterFunc(300*time.Millisecond, func() {
		createErr = admin.Exec("CREATE DATABASE " + name).Error
		close(created)
	})
	// After the CREATE, whenever the test ends: then dropped, then the
	// admin connection closed (a defer would close it before any
	// cleanup could drop).
	t.Cleanup(func() {
		<-created
		admin.Exec("DROP DATABASE IF EXISTS " + name)
		closeAdmin()
	})
	start := time.Now()
	if err := waitForDatabase(second, name, true, time.Minute); err != nil {
		t.Fatal(err)
	}
	waited := time.Since(start)
	c := *second
	c.DBName = name
	db, err := sql.Open("mysql", c.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Ping() // before anything else: as soon as the wait returned
	<-created
	if createErr != nil {
		t.Fatalf("create database on node 1: %v", createErr)
	}
	if err != nil {
		t.Fatalf("node 2, %s after the wait began (created on node 1 at 300ms): %v", waited.Round(time.Millisecond), err)
	}

	// The wait for a DROP (settle, at MustCreateGaleraDatabase's
	// cleanup) returns once node 2 no longer serves the database, and
	// node 2 is Synced. Fails when it does not wait (tried).
	dropped := make(chan error, 1)
	time.AfterFunc(300*time.Millisecond, func() { dropped <- admin.Exec("DROP DATABASE " + name).Error })
	if err := waitForDatabase(second, name, false, time.Minute); err != nil {
		t.Fatal(err)
	}
	gone, err := sql.Open("mysql", c.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer gone.Close()
	var me *mysqldrv.MySQLError
	if err := gone.Ping(); !errors.As(err, &me) || me.Number != 1049 {
		t.Errorf("node 2 right after the wait for the DROP: %v; want 1049 (unknown database)", err)
	}
	if err := <-dropped; err != nil {
		t.Fatalf("drop database on node 1: %v", err)
	}
}
