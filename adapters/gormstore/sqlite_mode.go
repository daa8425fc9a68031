package gormstore

import (
	"fmt"
	"os"
	"path/filepath"
)

// sqliteFileMode is the mode of a SQLite database file the store creates:
// the rows are partners' data, so not readable by others.
const sqliteFileMode = 0o640

// prepareSQLiteFiles makes sure the database file exists and that its
// shared-memory index (-shm) has the database's mode. The -wal and
// journal files get it from the driver (the DSN's modeof), but the
// driver creates -shm with 0666 less the umask; made first here, the
// driver opens it as it is. The driver removes both when the last
// connection closes, and this runs again at every open.
func prepareSQLiteFiles(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, sqliteFileMode)
	if err != nil {
		return fmt.Errorf("store.dsn: %w", err)
	}
	st, err := f.Stat()
	_ = f.Close()
	if err != nil {
		return fmt.Errorf("store.dsn: %w", err)
	}
	mode := st.Mode().Perm()
	shm, err := os.OpenFile(path+"-shm", os.O_RDWR|os.O_CREATE, mode)
	if err != nil {
		return fmt.Errorf("store.dsn: %s-shm: %w", path, err)
	}
	defer shm.Close()
	if err := shm.Chmod(mode); err != nil {
		return fmt.Errorf("store.dsn: %s-shm: %w", path, err)
	}
	return nil
}

// SQLiteMaxPath is the longest database path SQLite can open here: the
// driver reads at most 1,024 bytes of a file's name (a longer one made it
// panic at the first connection), and SQLite names the database's other
// files by its absolute path and a suffix of up to 8 bytes ("-journal").
const SQLiteMaxPath = 1024 - len("-journal")

// CheckSQLitePath refuses a path SQLite cannot hold, as given or as the
// absolute path, links resolved, that SQLite names the files by: from
// 1,017 bytes the store opened and its first write failed ("unable to
// open database file"); from 1,025 the driver panicked. It creates
// nothing.
func CheckSQLitePath(path string) error {
	full, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(full)); err == nil {
		full = filepath.Join(dir, filepath.Base(full))
	}
	if n := max(len(path), len(full)); n > SQLiteMaxPath {
		return fmt.Errorf("the SQLite path is %d bytes long (absolute, links resolved: %d); SQLite names the database's files by at most %d", n, len(full), SQLiteMaxPath)
	}
	return nil
}
