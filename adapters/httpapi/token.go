package httpapi

import (
	"encoding/json"
	"net/http"
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

// loginReply is /auth/login's answer (no status member: it is not the
// legacy endpoint).
type loginReply struct {
	AccessToken string `json:"access_token,omitempty"`
	TokenType   string `json:"token_type,omitempty"`
	ExpiresIn   int64  `json:"expires_in,omitempty"`
	Error       string `json:"error,omitempty"`
}

// maxCredentialsBody bounds the body of a token request, on every path.
const maxCredentialsBody = 16 << 10

// readCredentials reads {user, password} from a small JSON body, as
// POST /v1/token reads its own (receiveCredentials): at most
// maxCredentialsBody bytes, at the minimum body rate, while a place among
// the client address's token bodies is free. A body that is not such an
// object is invalid_client, with what to send.
func (s *Server) readCredentials(w http.ResponseWriter, r *http.Request) (ports.LoginAttempt, error) {
	data, err := s.receiveCredentials(w, r)
	if err != nil {
		return ports.LoginAttempt{}, err
	}
	var c struct {
		User     string `json:"user"`
		Password string `json:"password"`
	}
	if json.Unmarshal(data, &c) != nil || c.User == "" || c.Password == "" {
		return ports.LoginAttempt{}, unreadable(domain.ErrInvalidClient, `envíe un JSON {"user": ..., "password": ...}`)
	}
	return ports.LoginAttempt{User: c.User, Password: c.Password}, nil
}

// unreadOutcome is the outcome a token request whose body was not read
// is counted and logged with: overloaded when its address's token places
// were full, else malformed.
func unreadOutcome(err error) string {
	if asDomain(err).Code == codeOverloaded {
		return "overloaded"
	}
	return "malformed"
}

// exchange runs a login attempt for the handlers below and fills the
// request's log line; it returns the outcome for the answer.
func (s *Server) exchange(w http.ResponseWriter, r *http.Request, via TokenExchanger) (ports.Issued, error) {
	w.Header().Set("Cache-Control", "no-store")
	ri := info(r)
	ri.client = s.clientAddr(r)
	at, err := s.readCredentials(w, r)
	if err != nil {
		ri.outcome, ri.detail = unreadOutcome(err), asDomain(err).Message
		s.metrics.Exchange(ri.outcome)
		return ports.Issued{}, err
	}
	at.Addr = ri.client
	return s.attempt(r, via, at)
}

// attempt runs a login attempt whose credentials were read, and fills the
// request's log line and the metrics.
func (s *Server) attempt(r *http.Request, via TokenExchanger, at ports.LoginAttempt) (ports.Issued, error) {
	ri := info(r)
	issued, err := via.Token(r.Context(), at)
	ri.user = issued.LogUser
	ri.outcome = "ok"
	if err != nil {
		ri.outcome = s.answerOf(r, err, onExchange).code
	}
	s.metrics.Exchange(ri.outcome)
	switch {
	case err == nil:
		ri.detail = "token issued " + tokenRef(issued.Token, issued.Claims.ID)
	case domain.IsKind(err, domain.ErrThrottled):
		// One line per throttled key and window, however many arrive.
		de := asDomain(err)
		key := de.Detail + ":" + issued.LogUser
		if de.Detail == "address" {
			key = de.Detail + ":" + ri.client
		}
		now := s.Clock.Now()
		ri.quiet = !s.quiet.first(key, now, now.Add(de.RetryAfter))
		ri.detail = "throttled by " + de.Detail
	default:
		ri.err = err
	}
	return issued, err
}

// handleToken is GET /api/partner_api.php: credentials in, token out.
func (s *Server) handleToken(w http.ResponseWriter, r *http.Request) {
	issued, err := s.exchange(w, r, s.Exchange)
	if err != nil {
		a := s.answerOf(r, err, onExchange)
		a.headers(w)
		writeJSON(w, a.status, tokenReply{Status: a.status, Error: a.code, ErrorDescription: a.message})
		return
	}
	writeJSON(w, http.StatusOK, tokenReply{Status: http.StatusOK, AccessToken: issued.Token, TokenType: "bearer",
		ExpiresIn: int64(issued.ExpiresIn / time.Second)})
}

// handleLogin is POST /auth/login, the built-in login as an upstream for
// other instances: 200 {access_token}, 401 invalid_client, 429, 503.
func (s *Server) handleLogin(w http.ResponseWriter, r *http.Request) {
	issued, err := s.exchange(w, r, s.Login)
	if err != nil {
		a := s.answerOf(r, err, onLogin)
		a.headers(w)
		writeJSON(w, a.status, loginReply{Error: a.code})
		return
	}
	writeJSON(w, http.StatusOK, loginReply{AccessToken: issued.Token, TokenType: "bearer", ExpiresIn: int64(issued.ExpiresIn / time.Second)})
}
