package gormstore

import (
	"fmt"
	"io"
	"log"
	"net/url"
	"strings"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"

	"github.com/lender/disbursementd/adapters/gormstore/internal/walvfs"
	"github.com/lender/disbursementd/domain"
)

func init() {
	// The driver prints connection errors on its own; they reach the
	// service's log through the errors it returns.
	_ = mysqldrv.SetLogger(log.New(io.Discard, "", 0))
	walvfs.Register()
}

// sqliteTimeLayout is how times are written to SQLite: the layout of the
// earlier driver (modernc.org/sqlite), so that files written before read
// the same, and times of one zone (UTC) compare in order as text.
const sqliteTimeLayout = "2006-01-02 15:04:05.999999999-07:00"

// SQLiteDSN adds the pragmas the service relies on: WAL, the busy timeout
// busy (0: a locked database fails at once), full sync and immediate write
// transactions, a checkpoint every sqliteCheckpointPages WAL pages, and
// the time layout; and the VFS that writes a commit's WAL frames in one
// call (walvfs, which needs the full sync: a commit's frames are written
// when SQLite syncs the WAL, before other connections may read them).
func SQLiteDSN(path string, busy time.Duration) string {
	q := url.Values{}
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()))
	q.Add("_pragma", "synchronous(FULL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", fmt.Sprintf("wal_autocheckpoint(%d)", sqliteCheckpointPages))
	q.Set("_txlock", "immediate")
	q.Set("_timefmt", sqliteTimeLayout)
	q.Set("vfs", walvfs.Name)
	return "file:" + uriPath(path) + "?" + q.Encode()
}

// uriPath escapes what a SQLite URI would read in a path as other than
// the path (SQLite decodes %HH there): '?' would start the parameters,
// '#' a fragment, '%' an escape, and a control character makes the
// driver's own parse of the URI fail, after which it runs none of the
// _pragma parameters. A path with any of them named another file, or
// opened the right one without WAL, the full sync or the busy timeout.
// A path starting "//" (one file on Linux) would begin the URI's
// authority: "//localhost/x" opened "/x"; its first slash is escaped.
func uriPath(path string) string {
	if strings.HasPrefix(path, "//") {
		return "%2f" + uriEscape(path[1:], "")
	}
	return uriEscape(path, "")
}

// uriParam escapes a SQLite URI parameter's value: also '&' and ';',
// which would end it (';' for the driver's parse), '=' and '+', which
// the driver's parse reads as a space where SQLite keeps it (a path with
// a space, escaped by url.QueryEscape, named a file that did not exist).
func uriParam(v string) string { return uriEscape(v, "&;=+") }

func uriEscape(s, also string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '%' || c == '?' || c == '#' || c < 0x20 || c == 0x7f || strings.IndexByte(also, c) >= 0:
			fmt.Fprintf(&b, "%%%02x", c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// sqliteCheckpointPages is how many WAL pages a commit leaves before it
// checkpoints (SQLite's default is 1,000). The connection that commits
// runs the checkpoint, so every connection has it: the reports' writer,
// and the login throttle's and the migrations' connections. Less often,
// a checkpoint copies a page that several commits rewrote (an index's
// last leaf, the table's last page) once instead of up to four times;
// the -wal file stays at about this many pages (16 MB) once it has grown
// to it. Measured in docs/performance.md.
const sqliteCheckpointPages = 4000

// sqliteWriterPragmas are added to the reports' writing connection's DSN:
// a page cache of 16 MiB instead of SQLite's 2 MiB, which holds more of
// the index leaves that reports land on (the 2 MiB cache read pages back
// from the file about twice a report under W1). The readers keep SQLite's
// cache: there are store.max_open_conns of them, and a cache each would
// multiply.
const sqliteWriterPragmas = "&_pragma=cache_size(-16384)"

// withLockWait sets the session's innodb_lock_wait_timeout to d, rounded
// up to whole seconds, on every connection of dsn (a MySQLDSN): a
// statement that waits on another transaction's row lock fails with 1205
// within d, so one held lock stalls only the report that waited on it.
func withLockWait(dsn string, d time.Duration) (string, error) {
	cfg, err := mysqldrv.ParseDSN(dsn)
	if err != nil {
		return "", fmt.Errorf("store.dsn: %w", domain.MaskError(err))
	}
	if cfg.Params == nil {
		cfg.Params = map[string]string{}
	}
	cfg.Params["innodb_lock_wait_timeout"] = fmt.Sprint(int64((d + time.Second - 1) / time.Second))
	return cfg.FormatDSN(), nil
}

// MySQLDSN checks a go-sql-driver DSN and adds parseTime, loc=UTC and
// charset=utf8mb4 when missing. clientFoundRows is turned off whatever the
// DSN says: the store reads "rows affected" as rows changed (a
// reservation taken, a user updated), which that flag would turn into
// rows matched.
func MySQLDSN(dsn string) (string, error) {
	cfg, err := mysqldrv.ParseDSN(dsn)
	if err != nil {
		return "", fmt.Errorf("store.dsn: %w", domain.MaskError(err))
	}
	cfg.ClientFoundRows = false
	cfg.ParseTime = true
	cfg.Loc = time.UTC
	cfg.InterpolateParams = true
	if cfg.Params == nil {
		cfg.Params = map[string]string{}
	}
	if _, ok := cfg.Params["charset"]; !ok {
		cfg.Params["charset"] = "utf8mb4"
	}
	if cfg.Collation == "" || !strings.HasPrefix(cfg.Collation, "utf8mb4") {
		cfg.Collation = "utf8mb4_unicode_ci"
	}
	return cfg.FormatDSN(), nil
}
