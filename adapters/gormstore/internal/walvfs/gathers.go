package walvfs

import (
	"net/url"
	"strings"
)

// Gathers says whether a -wal file opened under a SQLite URI with query q
// is gathered: whether its connection syncs the WAL at every commit
// before it publishes the commit's frames, synchronous FULL or EXTRA set
// on the main database by the driver's _pragma parameters (the last that
// sets it), and power-safe overwrite is not turned off (with it off,
// SQLite writes the end of a commit's last frame after the sync). Only
// what it can read for certain gathers: a _pragma that names synchronous
// in any other form (another schema's, a quoted name or level), or one
// that holds a second statement or a comment (the driver runs them all
// as one script), turns gathering off. Without a level set, SQLite's
// default in WAL mode is this build's SQLITE_DEFAULT_WAL_SYNCHRONOUS,
// NORMAL: not gathered.
func Gathers(q url.Values) bool {
	if v := q.Get("psow"); v != "" {
		switch strings.ToLower(v) {
		case "0", "false", "no", "off":
			return false
		}
	}
	level := ""
	for _, p := range q["_pragma"] {
		p = strings.ToLower(strings.Join(strings.Fields(p), ""))
		if strings.Contains(p, ";") || strings.Contains(p, "--") || strings.Contains(p, "/*") {
			return false
		}
		if !strings.Contains(p, "synchronous") {
			continue
		}
		rest, ok := strings.CutPrefix(strings.TrimPrefix(p, "main."), "synchronous")
		switch {
		case !ok:
			return false
		case strings.HasPrefix(rest, "(") && strings.HasSuffix(rest, ")"):
			level = rest[1 : len(rest)-1]
		case strings.HasPrefix(rest, "="):
			level = rest[1:]
		default:
			return false
		}
	}
	switch level {
	case "full", "2", "extra", "3":
		return true
	}
	return false
}
