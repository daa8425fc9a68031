package app

import (
	"errors"

	"github.com/lender/disbursementd/domain"
)

// exitTable maps error kinds (domain.KindOf) to exit codes: the CLI's
// only classifier, as httpapi's status table is the HTTP one. Anything
// else, an internal error included, is ExitFailure.
var exitTable = []struct {
	kind error
	code int
}{
	{domain.ErrNotFound, ExitNotFound},
	{domain.ErrConflict, ExitExists},
	{domain.ErrInvalidInput, ExitUsage},
}

// exitCode is err's exit code, by its outermost kind only: a failed
// dependency (ErrUnavailable) whose cause wraps a store's ErrNotFound
// exits 1, not "not found".
func exitCode(err error) int {
	kind := domain.KindOf(err)
	for _, row := range exitTable {
		if kind != nil && errors.Is(kind, row.kind) {
			return row.code
		}
	}
	return ExitFailure
}
