package gormstore_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/test/storetest"
)

// TestCheckNodeList: a store.dsn that lists several nodes in tcp(...) is
// accepted as one cluster's nodes in preference order; an empty entry, a
// node named twice, an entry with credentials of its own or that is not
// host:port, a list over
// a unix socket and a list longer than a replica should probe are
// refused naming store.dsn, without the password, before anything
// connects (Check, which config check and Open run).
func TestCheckNodeList(t *testing.T) {
	t.Parallel()
	const pre, post = "disb:dsn-secret@", "/disb?wsrep_sync_wait=1"
	for _, tt := range []struct {
		name, dsn string
		refused   string // a part of the reason; "": accepted
	}{
		{"three nodes", pre + "tcp(db1:3306,db2:3306,db3:3306)" + post, ""},
		{"spaces around the nodes", pre + "tcp(db1:3306, db2:3306)" + post, ""},
		{"an empty entry", pre + "tcp(db1:3306,,db3:3306)" + post, "node 2 of the list"},
		{"a trailing comma", pre + "tcp(db1:3306,db2:3306,)" + post, "node 3 of the list"},
		{"a node named twice", pre + "tcp(db1:3306,db2:3306,db1:3306)" + post, "listed twice"},
		{"a list over a unix socket", pre + "unix(/run/a.sock,/run/b.sock)" + post, "tcp("},
		{"ten nodes", pre + "tcp(a:1,b:1,c:1,d:1,e:1,f:1,g:1,h:1,i:1,j:1)" + post, "at most 9"},
		{"an entry that is not host:port", pre + "tcp(db1:3306,db2:3306)/x)" + post, "not host:port"},
		{"an entry with other credentials", pre + "tcp(db1:3306,other:dsn-secret@db2:3306)" + post, "carries credentials"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := gormstore.Check(gormstore.MySQL, tt.dsn, storetest.WithOptions(gormstore.MySQL, gormstore.Options{}))
			if tt.refused == "" {
				if err != nil {
					t.Fatalf("Check = %v, want the list accepted", err)
				}
				return
			}
			var se *gormstore.SettingError
			if !errors.As(err, &se) || se.Key != "store.dsn" || !strings.Contains(se.Reason, tt.refused) {
				t.Fatalf("Check = %v, want a store.dsn refusal saying %q", err, tt.refused)
			}
			if strings.Contains(err.Error(), "dsn-secret") {
				t.Errorf("the refusal shows the password: %v", err)
			}
		})
	}
}
