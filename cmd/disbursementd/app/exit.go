package app

import (
	"errors"
	"fmt"

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

// cliErr tells err as who and returns its exit code (exitCode): a
// refusal by its message, a failed dependency by its cause, credentials
// masked.
func cliErr(io IO, who string, err error) int {
	msg := err.Error()
	var de *domain.Error
	if errors.As(err, &de) {
		msg = de.Message
		if exitCode(err) == ExitFailure && de.Cause != nil {
			msg += ": " + de.Cause.Error()
		}
	}
	fmt.Fprintf(io.Stderr, "%s: %s\n", who, domain.MaskCredentials(msg))
	return exitCode(err)
}
