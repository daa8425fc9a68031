package httpapi

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/lender/disbursementd/domain"
)

// surface is one of the three kinds of answer: a report (POST of the
// partner endpoint), the token exchange (its GET) and the built-in login
// (/auth/login). The same error kind may take another status on each.
type surface int

const (
	onReport surface = iota
	onExchange
	onLogin
)

// statusTable maps error kinds (domain.KindOf) to HTTP statuses, per
// surface; oauth is the error code of the token answers. It is the only
// place that knows this mapping.
var statusTable = []struct {
	kind                    error
	report, exchange, login int
	oauth                   string
}{
	{domain.ErrInvalidToken, http.StatusUnauthorized, http.StatusBadRequest, http.StatusUnauthorized, "invalid_client"},
	{domain.ErrInvalidClient, http.StatusBadRequest, http.StatusBadRequest, http.StatusUnauthorized, "invalid_client"},
	{domain.ErrThrottled, http.StatusTooManyRequests, http.StatusTooManyRequests, http.StatusTooManyRequests, "slow_down"},
	{domain.ErrTooLarge, http.StatusRequestEntityTooLarge, http.StatusBadRequest, http.StatusUnauthorized, "invalid_client"},
	{domain.ErrUnsupportedMediaType, http.StatusUnsupportedMediaType, http.StatusBadRequest, http.StatusUnauthorized, "invalid_client"},
	{domain.ErrKeyReused, http.StatusBadRequest, http.StatusBadRequest, http.StatusUnauthorized, "invalid_client"},
	{domain.ErrInProgress, http.StatusConflict, http.StatusServiceUnavailable, http.StatusServiceUnavailable, "temporarily_unavailable"},
	{domain.ErrInvalidInput, http.StatusBadRequest, http.StatusBadRequest, http.StatusUnauthorized, "invalid_client"},
	{domain.ErrNotFound, http.StatusNotFound, http.StatusBadRequest, http.StatusUnauthorized, "invalid_client"},
	{domain.ErrConflict, http.StatusConflict, http.StatusServiceUnavailable, http.StatusServiceUnavailable, "temporarily_unavailable"},
	{errBodyTooSlow, http.StatusRequestTimeout, http.StatusBadRequest, http.StatusUnauthorized, "invalid_client"},
	{domain.ErrUnavailable, http.StatusServiceUnavailable, http.StatusServiceUnavailable, http.StatusServiceUnavailable, "temporarily_unavailable"},
}

// statusOf returns the HTTP status of err on a surface and the token
// answers' error code: 500 (503 on the token surfaces) for anything
// unknown.
func statusOf(err error, on surface) (int, string) {
	kind := domain.KindOf(err)
	for _, row := range statusTable {
		if kind != nil && errors.Is(kind, row.kind) {
			return [...]int{row.report, row.exchange, row.login}[on], row.oauth
		}
	}
	if on == onReport {
		return http.StatusInternalServerError, "temporarily_unavailable"
	}
	return http.StatusServiceUnavailable, "temporarily_unavailable"
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

// setRetryAfter writes the error's Retry-After, in whole seconds rounded
// up, when it has one.
func setRetryAfter(w http.ResponseWriter, err error) {
	var de *domain.Error
	if errors.As(err, &de) && de.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int((de.RetryAfter+time.Second-1)/time.Second)))
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
