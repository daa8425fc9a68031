package gormstore

// SetBeforeCommit makes f run before each batch's COMMIT, so a test can
// hold a batch's transaction open (a COMMIT that reaches the database
// late). Set it before the store is used.
func SetBeforeCommit(s *Store, f func()) { s.beforeCommit = f }

// Queued returns the number of reports waiting for a writer.
func Queued(s *Store) int { return len(s.batch.queue) }
