package app

import (
	"errors"
	"fmt"
	"testing"

	"github.com/lender/disbursementd/domain"
)

// TestExitCodeByKind: the exit code is the outermost kind's alone; a
// failed dependency whose cause wraps a store's ErrNotFound is a failure,
// not "not found", and a bare sentinel is no kind.
func TestExitCodeByKind(t *testing.T) {
	notFound := fmt.Errorf("user %q: %w", "acme", domain.ErrNotFound)
	for _, tt := range []struct {
		name string
		err  error
		want int
	}{
		{"not found", domain.NewError(domain.ErrNotFound, "not_found", "no report 7"), ExitNotFound},
		{"exists", domain.NewError(domain.ErrConflict, "user_exists", "exists").WithCause(errors.New("dup")), ExitExists},
		{"invalid", domain.NewError(domain.ErrInvalidInput, "invalid_request", "bad id"), ExitUsage},
		{"503 wrapping not found", domain.NewError(domain.ErrUnavailable, "store_failed", "db").WithCause(notFound), ExitFailure},
		{"503 wrapping a not-found kind", domain.NewError(domain.ErrUnavailable, "store_failed", "db").
			WithCause(domain.NewError(domain.ErrNotFound, "not_found", "gone")), ExitFailure},
		{"wrapped kind", fmt.Errorf("show: %w", domain.NewError(domain.ErrNotFound, "not_found", "x")), ExitNotFound},
		{"bare sentinel", notFound, ExitFailure},
		{"internal", errors.New("boom"), ExitFailure},
	} {
		if got := exitCode(tt.err); got != tt.want {
			t.Errorf("%s: exit %d, want %d", tt.name, got, tt.want)
		}
	}
}
