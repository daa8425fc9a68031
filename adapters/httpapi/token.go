package httpapi

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// tokenReply is the GET exchange's answer; status is an integer, as the
// spec's token response has it.
type tokenReply struct {
	Status           int    `json:"status"`
	AccessToken      string `json:"access_token,omitempty"`
	TokenType        string `json:"token_type,omitempty"`
	ExpiresIn        int64  `json:"expires_in,omitempty"`
	Error            string `json:"error,omitempty"`
	ErrorDescription string `json:"error_description,omitempty"`
}

type credentials struct {
	User     string `json:"user"`
	Password string `json:"password"`
}

// readCredentials reads {user, password} from a small JSON body.
func readCredentials(w http.ResponseWriter, r *http.Request) (credentials, bool) {
	var c credentials
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 16<<10))
	if err != nil || json.Unmarshal(data, &c) != nil || c.User == "" || c.Password == "" {
		return credentials{}, false
	}
	return c, true
}

// tokenError writes the OAuth-style error body of the GET exchange, with
// an integer status as the spec's token response has.
func tokenError(w http.ResponseWriter, err error, description string) {
	status := statusOf(err)
	code := "invalid_client"
	switch {
	case errors.Is(err, domain.ErrThrottled):
		code = "slow_down"
		w.Header().Set("Retry-After", retryAfter(err))
	case status >= 500:
		status, code = http.StatusServiceUnavailable, "temporarily_unavailable"
	default:
		status = http.StatusBadRequest
	}
	writeJSON(w, status, tokenReply{Status: status, Error: code, ErrorDescription: description})
}

// handleToken is GET /api/partner_api.php: credentials in, token out.
func (s *Server) handleToken(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	ri := info(r)
	c, ok := readCredentials(w, r)
	if !ok {
		s.metrics.Exchanges.WithLabelValues("malformed").Inc()
		tokenError(w, domain.ErrInvalidClient, "envíe un JSON {\"user\": ..., \"password\": ...}")
		return
	}
	ri.user = c.User
	addr := s.clientAddr(r)
	issued, err := s.Auth.Token(r.Context(), ports.LoginAttempt{User: c.User, Password: c.Password, Addr: addr})
	tok, claims := issued.Token, issued.Claims
	if err != nil {
		outcome := exchangeOutcome(err)
		s.metrics.Exchanges.WithLabelValues(outcome).Inc()
		ri.err, ri.detail = err, "token exchange refused: "+outcome
		s.logAuth(r, c.User, addr, outcome, err)
		tokenError(w, err, "")
		return
	}
	s.metrics.Exchanges.WithLabelValues("ok").Inc()
	s.logAuth(r, c.User, addr, "ok", nil, "token", tokenRef(tok, claims.ID))
	ri.detail = "token issued " + tokenRef(tok, claims.ID)
	writeJSON(w, http.StatusOK, tokenReply{Status: http.StatusOK, AccessToken: tok, TokenType: "bearer",
		ExpiresIn: int64(time.Until(claims.Expiry).Seconds())})
}

func exchangeOutcome(err error) string {
	switch {
	case errors.Is(err, domain.ErrInvalidClient):
		return "invalid_client"
	case errors.Is(err, domain.ErrThrottled):
		return "slow_down"
	}
	return "unavailable"
}

// handleLogin is POST /auth/login, the built-in login as an upstream for
// other instances: 200 {access_token}, 401 invalid_client, 429, 503.
func (s *Server) handleLogin(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	c, ok := readCredentials(w, r)
	if !ok {
		writeJSON(w, http.StatusUnauthorized, map[string]any{"error": "invalid_client"})
		return
	}
	info(r).user = c.User
	addr := s.clientAddr(r)
	issued, err := s.Login.Token(r.Context(), ports.LoginAttempt{User: c.User, Password: c.Password, Addr: addr})
	tok := issued.Token
	s.logAuth(r, c.User, addr, exchangeOutcomeOrOK(err), err)
	switch {
	case err == nil:
		writeJSON(w, http.StatusOK, map[string]any{"access_token": tok, "token_type": "bearer", "expires_in": int64(s.TokenTTL.Seconds())})
	case errors.Is(err, domain.ErrInvalidClient):
		writeJSON(w, http.StatusUnauthorized, map[string]any{"error": "invalid_client"})
	case errors.Is(err, domain.ErrThrottled):
		w.Header().Set("Retry-After", retryAfter(err))
		writeJSON(w, http.StatusTooManyRequests, map[string]any{"error": "slow_down"})
	default:
		info(r).err = err
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"error": "temporarily_unavailable"})
	}
}

func exchangeOutcomeOrOK(err error) string {
	if err == nil {
		return "ok"
	}
	return exchangeOutcome(err)
}

// retryAfter is the Retry-After value of a throttling error.
func retryAfter(err error) string {
	var de *domain.Error
	if errors.As(err, &de) && de.RetryAfter > 0 {
		return strconv.Itoa(int(de.RetryAfter.Seconds()) + 1)
	}
	return "60"
}

// logAuth writes the one line of an authentication attempt: who, from
// where, and how it ended. Never the password or the token.
func (s *Server) logAuth(r *http.Request, user, addr, outcome string, err error, extra ...any) {
	attrs := append([]any{"request_id", info(r).id, "partner_user", user, "client", addr, "outcome", outcome}, extra...)
	level := slog.LevelInfo
	if err != nil {
		level = slog.LevelWarn
		attrs = append(attrs, "reason", err.Error())
	}
	s.Log.Log(r.Context(), level, "auth attempt", attrs...)
}
