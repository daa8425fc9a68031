package gormstore_test

import (
	"context"
	"errors"
	"testing"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/test/storetest"
)

// TestCheckRefusesUncausalReads: a DSN whose wsrep_sync_wait leaves reads
// uncausal is refused naming store.dsn; one that keeps bit 1, or none
// (the store sets it on Galera), is accepted.
func TestCheckRefusesUncausalReads(t *testing.T) {
	const dsn = "u:secret@tcp(db.internal:3306)/disb"
	for v, refused := range map[string]bool{"": false, "?wsrep_sync_wait=1": false, "?wsrep_sync_wait=3": false,
		"?wsrep_sync_wait=0": true, "?wsrep_sync_wait=6": true, "?wsrep_sync_wait=x": true} {
		err := gormstore.Check(gormstore.MySQL, dsn+v, storetest.WithOptions(gormstore.MySQL, gormstore.Options{}))
		var se *gormstore.SettingError
		if got := errors.As(err, &se) && se.Key == "store.dsn"; got != refused || !refused && err != nil {
			t.Errorf("Check(%q) = %v; refused want %v", v, err, refused)
		}
	}
}

// TestReadinessOnPlainMariaDB: on a server without wsrep the readiness
// check (Ping) passes and sessions keep the server's wsrep_sync_wait.
func TestReadinessOnPlainMariaDB(t *testing.T) {
	st := storetest.MustOpenMySQL(t)
	if err := st.Ping(context.Background()); err != nil {
		t.Fatalf("Ping on a plain MariaDB: %v", err)
	}
}
