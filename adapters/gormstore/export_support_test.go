package gormstore

import "github.com/lender/disbursementd/ports"

// FindQuery is the statement FindReport runs (its argument: id).
func FindQuery(s *Store) string { return s.findQuery() }

// ArchiveQuery is the statement FindReports of s runs for f, and its
// arguments, with before the position of report f.BeforeID (FindReports
// reads it first).
func ArchiveQuery(s *Store, f ports.ArchiveFilter, before ports.ListPosition) (string, []any, error) {
	return archiveQuery(s.driver, f, before)
}
