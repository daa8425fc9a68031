package gormstore

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ncruces/go-sqlite3"
)

// TestRequireFullSync: a connection that does not sync the WAL at every
// commit is refused when it opens; FULL and EXTRA are taken.
func TestRequireFullSync(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		level string
		ok    bool
	}{{"OFF", false}, {"NORMAL", false}, {"FULL", true}, {"EXTRA", true}} {
		t.Run(c.level, func(t *testing.T) {
			conn, err := sqlite3.Open(filepath.Join(t.TempDir(), "d.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				if err := conn.Close(); err != nil {
					t.Error(err)
				}
			}()
			if err := conn.Exec("PRAGMA journal_mode=WAL; PRAGMA main.synchronous=" + c.level); err != nil {
				t.Fatal(err)
			}
			err = requireFullSync(conn)
			if (err == nil) != c.ok || (err != nil && !strings.Contains(err.Error(), "needs FULL (2) or EXTRA (3)")) {
				t.Errorf("requireFullSync: %v; want ok %v", err, c.ok)
			}
		})
	}
}
