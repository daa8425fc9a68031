package passwords

// OnRun makes b call f with the cost of every bcrypt computation it runs
// (a comparison, or a dummy made on demand): tests count the work each
// login path does instead of timing it.
func OnRun(b *Bcrypt, f func(cost int)) { b.onRun = f }
