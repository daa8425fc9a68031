package gormstore

// FieldsQuery is the statement ReportFields of s runs for n ids (its
// arguments: the ids, then the user).
func FieldsQuery(s *Store, n int) string { return s.fieldsQuery(n) }
