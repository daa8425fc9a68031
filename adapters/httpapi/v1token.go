package httpapi

import (
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// v1TokenReply is the answer of POST /v1/token: a token (RFC 6749 §5.1)
// or an error (§5.2).
type v1TokenReply struct {
	AccessToken      string `json:"access_token,omitempty"`
	TokenType        string `json:"token_type,omitempty"`
	ExpiresIn        int64  `json:"expires_in,omitempty"`
	Error            string `json:"error,omitempty"`
	ErrorDescription string `json:"error_description,omitempty"`
}

const (
	formContentType = "application/x-www-form-urlencoded"
	// basicChallenge is on every 401 of POST /v1/token.
	basicChallenge = `Basic realm="` + realm + `"`
)

// handleV1Token is POST /v1/token: the partner's credentials through the
// legacy exchange (the same login, throttle and token), asked as OAuth 2.0
// client credentials or as the legacy JSON.
func (s *Server) handleV1Token(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Pragma", "no-cache")
	ri := info(r)
	ri.client = s.clientAddr(r)
	at, err := s.tokenRequest(w, r)
	if err != nil {
		ri.outcome, ri.detail = unreadOutcome(err), asDomain(err).Message
		s.metrics.Exchange(ri.outcome)
		s.tokenError(w, r, err)
		return
	}
	at.Addr = ri.client
	issued, err := s.attempt(r, s.Exchange, at)
	if err != nil {
		s.tokenError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, v1TokenReply{AccessToken: issued.Token, TokenType: "Bearer", ExpiresIn: int64(issued.ExpiresIn / time.Second)})
}

// tokenError answers a refused or failed token request with its RFC 6749
// error (answerOf); error_description is the service's own text for a
// request it could not read (ASCII, as §5.2 asks), never the login's.
func (s *Server) tokenError(w http.ResponseWriter, r *http.Request, err error) {
	a := s.answerOf(r, err, onV1Token)
	a.headers(w)
	if a.status >= 500 {
		info(r).err = err
	}
	writeJSON(w, a.status, v1TokenReply{Error: a.code, ErrorDescription: a.message})
}

// tokenParams are what a token request's body says.
type tokenParams struct {
	grant, id, secret string
	grantSent         bool
	idName, secName   string // the names of id and secret in this form
}

// tokenRequest reads a token request in the contract's order:
// Content-Type, then grant_type (missing: invalid_request; another:
// unsupported_grant_type), then the credentials. Nothing is hashed before
// grant_type passes.
func (s *Server) tokenRequest(w http.ResponseWriter, r *http.Request) (ports.LoginAttempt, error) {
	mt, err := mediaType(r)
	if errors.Is(err, errTwoContentTypes) {
		return ports.LoginAttempt{}, unreadable(domain.ErrInvalidInput, "Content-Type llego mas de una vez; envie uno solo")
	}
	if err != nil || mt != formContentType && mt != "application/json" {
		return ports.LoginAttempt{}, unreadable(domain.ErrUnsupportedMediaType,
			"Content-Type debe ser application/x-www-form-urlencoded o application/json")
	}
	body, err := s.receiveCredentials(w, r)
	if err != nil {
		return ports.LoginAttempt{}, err
	}
	var p tokenParams
	if mt == formContentType {
		p, err = formParams(body)
	} else {
		p, err = jsonParams(body)
	}
	switch {
	case err != nil:
		return ports.LoginAttempt{}, err
	case p.grant == "" && (mt == formContentType || p.grantSent):
		return ports.LoginAttempt{}, unreadable(domain.ErrInvalidInput, "falta el parametro grant_type (client_credentials)")
	case p.grantSent && p.grant != "client_credentials":
		return ports.LoginAttempt{}, unreadable(errUnsupportedGrant, "grant_type debe ser client_credentials")
	}
	return credentials(r, p)
}

// credentials are the client id and secret: in HTTP Basic, in the body,
// or the same pair in both (contract §10: generated clients send both);
// two different pairs are invalid_request. None at all is invalid_client
// (RFC 6749 §5.2: no client authentication); half of the pair in the body
// is a missing parameter.
func credentials(r *http.Request, p tokenParams) (ports.LoginAttempt, error) {
	decoded, raw, basic, err := basicCredentials(r)
	inBody := p.id != "" || p.secret != ""
	body := ports.Credentials{User: p.id, Password: p.secret}
	switch {
	case basic && err != nil && p.id != "" && p.secret != "":
		// A Basic that holds no id:secret pair is no client credential,
		// and the body has the pair: a generated client's auth callback
		// (hey-api's `auth: () => token`) hands the bearer token it holds
		// to every scheme, Basic included, when it renews that token.
		return ports.LoginAttempt{User: p.id, Password: p.secret}, nil
	case basic && err != nil:
		return ports.LoginAttempt{}, unreadable(domain.ErrInvalidClient, "credenciales HTTP Basic mal codificadas (RFC 6749 2.3.1)")
	case basic && inBody && body != decoded && body != raw:
		return ports.LoginAttempt{}, unreadable(domain.ErrInvalidInput, "llegaron credenciales distintas en HTTP Basic y en el cuerpo; envie unas solas")
	case basic && inBody:
		return ports.LoginAttempt{User: body.User, Password: body.Password}, nil
	case basic:
		return ports.LoginAttempt{User: decoded.User, Password: decoded.Password, Raw: &raw}, nil
	case !inBody:
		return ports.LoginAttempt{}, unreadable(domain.ErrInvalidClient, "faltan las credenciales: HTTP Basic, o "+p.idName+" y "+p.secName)
	case p.id == "":
		return ports.LoginAttempt{}, unreadable(domain.ErrInvalidInput, "falta el parametro "+p.idName)
	case p.secret == "":
		return ports.LoginAttempt{}, unreadable(domain.ErrInvalidInput, "falta el parametro "+p.secName)
	}
	return ports.LoginAttempt{User: p.id, Password: p.secret}, nil
}

// basicCredentials reads HTTP Basic credentials: base64, split at the
// first ':'. decoded is each part form-urldecoded, as RFC 6749 §2.3.1 has
// a client send them; raw is the parts as sent, for the clients that do
// not encode (contract §10). A part that is not valid form encoding
// (a bare '%') can only be raw: decoded is then raw too. basic is false
// when Authorization holds no Basic credentials.
func basicCredentials(r *http.Request) (decoded, raw ports.Credentials, basic bool, err error) {
	scheme, rest, _ := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	if !strings.EqualFold(scheme, "basic") {
		return decoded, raw, false, nil
	}
	text, err := base64.StdEncoding.DecodeString(strings.TrimSpace(rest))
	if err != nil {
		return decoded, raw, true, err
	}
	u, p, ok := strings.Cut(string(text), ":")
	if !ok {
		return decoded, raw, true, errors.New("no ':' between the client id and secret")
	}
	raw = ports.Credentials{User: u, Password: p}
	du, errU := url.QueryUnescape(u)
	dp, errP := url.QueryUnescape(p)
	if errU != nil || errP != nil {
		return raw, raw, true, nil
	}
	return ports.Credentials{User: du, Password: dp}, raw, true, nil
}

// formParams reads the form of RFC 6749 §4.4.2. A parameter of the
// exchange sent twice is invalid_request (§3.2); one sent empty counts as
// absent (§3.1); others are ignored.
func formParams(body []byte) (tokenParams, error) {
	p := tokenParams{idName: "client_id", secName: "client_secret"}
	values, err := url.ParseQuery(string(body))
	if err != nil {
		return p, unreadable(domain.ErrInvalidInput, "el cuerpo no es un formulario application/x-www-form-urlencoded valido")
	}
	for _, name := range []string{"grant_type", "client_id", "client_secret", "scope"} {
		if len(values[name]) > 1 {
			return p, unreadable(domain.ErrInvalidInput, "el parametro "+name+" llego mas de una vez")
		}
	}
	p.grant, p.id, p.secret = values.Get("grant_type"), values.Get("client_id"), values.Get("client_secret")
	p.grantSent = values.Has("grant_type")
	return p, nil
}

// maxTokenMembers bounds the members of a JSON token request.
const maxTokenMembers = 32

// jsonParams reads the JSON form: {"user", "password"} as the legacy
// exchange takes them, and grant_type when sent. Other members are
// ignored; one of these three twice, or not a string, is invalid_request.
func jsonParams(body []byte) (tokenParams, error) {
	p := tokenParams{idName: "user", secName: "password"}
	members, err := DecodeObject(body, maxTokenMembers)
	if err != nil {
		return p, unreadable(domain.ErrInvalidInput, `el cuerpo debe ser un objeto JSON {"user": ..., "password": ...}`)
	}
	seen := map[string]bool{}
	for _, m := range members {
		var dst *string
		switch m.Key {
		case "grant_type":
			dst, p.grantSent = &p.grant, true
		case "user":
			dst = &p.id
		case "password":
			dst = &p.secret
		default:
			continue
		}
		switch {
		case seen[m.Key]:
			return p, unreadable(domain.ErrInvalidInput, "el miembro "+m.Key+" llego mas de una vez")
		case m.Value.Kind == domain.RawString:
			*dst = strings.Clone(m.Value.Text)
		case m.Value.Kind != domain.RawNull:
			return p, unreadable(domain.ErrInvalidInput, "el miembro "+m.Key+" debe ser un texto")
		}
		seen[m.Key] = true
	}
	return p, nil
}

// receiveCredentials reads a token request's body: at most
// maxCredentialsBody bytes, at the minimum body rate, while a place among
// the token bodies of the client's address (its /48 for IPv6) is free (a
// request without a token has no partner to bound it by).
func (s *Server) receiveCredentials(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if r.ContentLength > maxCredentialsBody {
		return nil, unreadable(domain.ErrTooLarge, msgCredentialsTooLarge)
	}
	return s.receiveBody(w, r, intake{
		gate: s.tokens, key: placeKey(info(r).client), limit: maxCredentialsBody, read: io.ReadAll,
		busy: func() error {
			// The body is left unread, so the connection closes after the answer.
			w.Header().Set("Connection", "close")
			_ = http.NewResponseController(w).SetReadDeadline(time.Unix(1, 0))
			e := domain.NewError(domain.ErrUnavailable, codeOverloaded, "too many token bodies arriving from this address")
			e.RetryAfter = time.Second
			return e
		},
		tooLarge: unreadable(domain.ErrTooLarge, msgCredentialsTooLarge),
		tooSlow:  unreadable(errBodyTooSlow, "el cuerpo llego mas lento que el minimo; reintente"),
		broken:   unreadable(domain.ErrInvalidInput, "no se pudo leer el cuerpo completo"),
	})
}

// msgCredentialsTooLarge is the error_description of a token request's
// body over maxCredentialsBody (in ASCII, as RFC 6749 §5.2 asks).
var msgCredentialsTooLarge = "el cuerpo supera " + itoa(maxCredentialsBody>>10) + " KiB"
