package httpapi

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/lender/disbursementd/domain"
)

// statusTable maps error kinds to HTTP statuses, checked in order with
// errors.Is. It is the only place that knows this mapping.
var statusTable = []struct {
	kind   error
	status int
}{
	{domain.ErrInvalidToken, http.StatusUnauthorized},
	{domain.ErrInvalidClient, http.StatusBadRequest},
	{domain.ErrThrottled, http.StatusTooManyRequests},
	{domain.ErrTooLarge, http.StatusRequestEntityTooLarge},
	{domain.ErrUnsupportedMediaType, http.StatusUnsupportedMediaType},
	{domain.ErrKeyReused, http.StatusBadRequest},
	{domain.ErrInProgress, http.StatusConflict},
	{domain.ErrInvalidInput, http.StatusBadRequest},
	{domain.ErrNotFound, http.StatusNotFound},
	{domain.ErrConflict, http.StatusConflict},
	{domain.ErrUnavailable, http.StatusServiceUnavailable},
}

// statusOf returns the HTTP status for err: 500 for anything unknown. The
// outermost *domain.Error decides by its Kind: its Cause (kept for the
// log) may be of another kind, e.g. an upstream token we refuse is our
// ErrUnavailable, not the partner's ErrInvalidToken.
func statusOf(err error) int {
	var de *domain.Error
	if errors.As(err, &de) {
		err = de.Kind
	}
	for _, row := range statusTable {
		if errors.Is(err, row.kind) {
			return row.status
		}
	}
	return http.StatusInternalServerError
}

// asDomain returns err's *domain.Error, or a generic one whose message
// hides the internal error.
func asDomain(err error) *domain.Error {
	var de *domain.Error
	if errors.As(err, &de) {
		return de
	}
	return &domain.Error{Kind: err, Code: "internal_error", Message: "Error interno; intente de nuevo más tarde", Cause: err}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
