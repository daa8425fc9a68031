package gormstore

import (
	"fmt"
	"os"
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
