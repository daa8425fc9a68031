package httpapi

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/lender/disbursementd/domain"
)

// surface is one of the kinds of answer: a report (POST of the partner
// endpoint), the token exchange (its GET), the built-in login
// (/auth/login), a /v1 route (problem details), the /v1 token endpoint
// (RFC 6749 error bodies) and the decision API of the internal listener
// (problem details with /v1's statuses, its own challenge). The same
// error kind may take another status on each.
type surface int

const (
	onReport surface = iota
	onExchange
	onLogin
	onV1
	onV1Token
	onAdmin
)

// statusTable maps error kinds (domain.KindOf) to HTTP statuses, per
// surface; oauth is the error code of the legacy token answers, tokenCode
// that of POST /v1/token. It is the only place that knows this mapping
// (statusOf adds the one rule that is not by kind: a /v1 400 that lists
// field problems is a 422).
var statusTable = []struct {
	kind                               error
	report, exchange, login, v1, token int
	oauth, tokenCode                   string
}{
	{domain.ErrInvalidToken, http.StatusUnauthorized, http.StatusBadRequest, http.StatusUnauthorized, http.StatusUnauthorized, http.StatusUnauthorized, "invalid_client", "invalid_client"},
	{domain.ErrInvalidClient, http.StatusBadRequest, http.StatusBadRequest, http.StatusUnauthorized, http.StatusUnauthorized, http.StatusUnauthorized, "invalid_client", "invalid_client"},
	{domain.ErrThrottled, http.StatusTooManyRequests, http.StatusTooManyRequests, http.StatusTooManyRequests, http.StatusTooManyRequests, http.StatusTooManyRequests, "slow_down", "slow_down"},
	{domain.ErrTooLarge, http.StatusRequestEntityTooLarge, http.StatusBadRequest, http.StatusUnauthorized, http.StatusRequestEntityTooLarge, http.StatusBadRequest, "invalid_client", "invalid_request"},
	{domain.ErrUnsupportedMediaType, http.StatusUnsupportedMediaType, http.StatusBadRequest, http.StatusUnauthorized, http.StatusUnsupportedMediaType, http.StatusBadRequest, "invalid_client", "invalid_request"},
	{errNotAcceptable, http.StatusNotAcceptable, http.StatusBadRequest, http.StatusUnauthorized, http.StatusNotAcceptable, http.StatusBadRequest, "invalid_client", "invalid_request"},
	{errUnsupportedGrant, http.StatusBadRequest, http.StatusBadRequest, http.StatusUnauthorized, http.StatusBadRequest, http.StatusBadRequest, "invalid_client", "unsupported_grant_type"},
	{domain.ErrKeyReused, http.StatusBadRequest, http.StatusBadRequest, http.StatusUnauthorized, http.StatusBadRequest, http.StatusBadRequest, "invalid_client", "invalid_request"},
	{domain.ErrInProgress, http.StatusConflict, http.StatusServiceUnavailable, http.StatusServiceUnavailable, http.StatusConflict, http.StatusServiceUnavailable, "temporarily_unavailable", "temporarily_unavailable"},
	{domain.ErrInvalidInput, http.StatusBadRequest, http.StatusBadRequest, http.StatusUnauthorized, http.StatusBadRequest, http.StatusBadRequest, "invalid_client", "invalid_request"},
	{domain.ErrNotFound, http.StatusNotFound, http.StatusBadRequest, http.StatusUnauthorized, http.StatusNotFound, http.StatusUnauthorized, "invalid_client", "invalid_client"},
	{domain.ErrGone, http.StatusGone, http.StatusBadRequest, http.StatusUnauthorized, http.StatusGone, http.StatusBadRequest, "invalid_client", "invalid_request"},
	{domain.ErrConflict, http.StatusConflict, http.StatusServiceUnavailable, http.StatusServiceUnavailable, http.StatusConflict, http.StatusServiceUnavailable, "temporarily_unavailable", "temporarily_unavailable"},
	{errBodyTooSlow, http.StatusRequestTimeout, http.StatusBadRequest, http.StatusUnauthorized, http.StatusRequestTimeout, http.StatusBadRequest, "invalid_client", "invalid_request"},
	{domain.ErrUnavailable, http.StatusServiceUnavailable, http.StatusServiceUnavailable, http.StatusServiceUnavailable, http.StatusServiceUnavailable, http.StatusServiceUnavailable, "temporarily_unavailable", "temporarily_unavailable"},
}

// statusOf returns the HTTP status of err on a surface and the token
// answers' error code: for anything unknown, 500 on a report and on /v1
// (server_error on the /v1 token endpoint), 503 on the legacy token
// surfaces.
func statusOf(err error, on surface) (int, string) {
	kind := domain.KindOf(err)
	for _, row := range statusTable {
		if kind != nil && errors.Is(kind, row.kind) {
			// The decision API answers as /v1 does.
			status := [...]int{row.report, row.exchange, row.login, row.v1, row.token, row.v1}[on]
			if (on == onV1 || on == onAdmin) && status == http.StatusBadRequest && len(asDomain(err).Problems) > 0 {
				// Contract §8: what errors[] lists (values, keys, the
				// file's content) is a well-formed report's problem.
				status = http.StatusUnprocessableEntity
			}
			if on == onV1Token {
				return status, row.tokenCode
			}
			return status, row.oauth
		}
	}
	switch on {
	case onReport, onV1, onAdmin:
		return http.StatusInternalServerError, "temporarily_unavailable"
	case onV1Token:
		return http.StatusInternalServerError, "server_error"
	}
	return http.StatusServiceUnavailable, "temporarily_unavailable"
}

// errUnsupportedGrant is the kind of a /v1/token request whose grant_type
// is not client_credentials (RFC 6749 §5.2 unsupported_grant_type): an
// OAuth rule, so the HTTP adapter's own.
var errUnsupportedGrant = errors.New("unsupported grant type")

// errNotAcceptable is the kind of a request whose Accept header names no
// media type its route answers in (406 not_acceptable): content
// negotiation is HTTP's, so the HTTP adapter's own.
var errNotAcceptable = errors.New("not acceptable")

// asDomain returns err's *domain.Error, or a generic one whose message
// hides the internal error.
func asDomain(err error) *domain.Error {
	var de *domain.Error
	if errors.As(err, &de) {
		return de
	}
	return &domain.Error{Kind: err, Code: "internal_error", Message: msgInternal, Cause: err}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
