package httpapi

import (
	"net/http"
	"strconv"
	"time"

	"github.com/lender/disbursementd/domain"
)

// msgInternal is the safe message of every 500: the error itself goes to
// the log only.
const msgInternal = msgInternalShort + "; intente de nuevo más tarde"

// msgInternalShort is the message of a 500 outside a report's answer
// and /v1 (the original specification's).
const msgInternalShort = "Error interno"

// codeUnreadable marks an error the adapter built about a token request
// it could not read (unreadable): its message is the service's own ASCII
// text, sent as error_description, where any other error's is not.
const codeUnreadable = "unreadable_request"

// errorAnswer is what is sent for an error on one surface. answerOf is the
// only place that builds one; each surface's encoder (reportError,
// v1Problem, tokenError, exchangeError, loginError) writes its fields
// and decides nothing.
type errorAnswer struct {
	status    int
	code      string        // the body's code: the report's or problem's, the OAuth error on the token surfaces
	label     string        // the code the log line and the refused-report metric have
	message   string        // the safe text (the problem's detail, the error_description); "" for none
	detail    string        // the legacy report's detail member
	reason    string        // on a /v1 401, why in one word (the problem's reason member)
	challenge string        // WWW-Authenticate; "" for none
	retry     string        // Retry-After in whole seconds; "" for none
	problems  []problemJSON // bounded by Limits.MaxProblems
	logDetail string        // on a 401 of a report or /v1 route: why, and which token
	de        *domain.Error
}

// answerOf turns err into what is sent on a surface, as wtf's ErrorCode
// and ErrorMessage do: the status from the status table (statusOf), the
// wire code, a message that never shows an internal error, the
// challenge of a 401, Retry-After and the field problems.
func (s *Server) answerOf(r *http.Request, err error, on surface) errorAnswer {
	de := asDomain(err)
	status, oauth := statusOf(err, on)
	a := errorAnswer{status: status, code: de.Code, label: de.Code, message: de.Message, de: de}
	if a.code == "" {
		// The core names kinds, not wire words (domain.InvalidClient,
		// Unavailable, Throttled): such an error takes its kind's word.
		_, word := statusOf(err, onExchange)
		a.code, a.label = word, word
	}
	if de.RetryAfter > 0 {
		a.retry = strconv.Itoa(int((de.RetryAfter + time.Second - 1) / time.Second))
	}
	switch on {
	case onReport:
		a.detail = de.Detail
		if status == http.StatusUnauthorized {
			a.label, a.challenge = "invalid_token", `Bearer error="invalid_token"`
			tok, _ := bearerToken(r)
			a.logDetail = logTokenDetail(de.Detail, tok)
		}
	case onV1:
		if status == http.StatusUnauthorized {
			a.code, a.reason = "invalid_token", de.Detail
			if a.reason == "" {
				a.reason = "invalid"
			}
			tok, why := authorizationToken(r)
			a.challenge = challengeInvalid
			if why == "missing" {
				a.challenge = challengeMissing
			}
			if de.Detail != "" {
				a.message += " (" + de.Detail + ")"
			}
			a.logDetail = logTokenDetail(de.Detail, tok)
		}
		if status == http.StatusInternalServerError {
			a.code = "internal_error"
		}
		a.label = a.code
	case onAdmin:
		// A back-office secret, never a partner's token: the challenge
		// names the realm of the decision API (no reason member: what a
		// refused secret was is nobody's business but the log's).
		if status == http.StatusUnauthorized {
			a.code, a.message = "invalid_token", msgAdminToken
			tok, why := authorizationToken(r)
			a.challenge = challengeAdmin
			if why != "missing" {
				a.challenge += `, error="invalid_token"`
			}
			a.logDetail = logTokenDetail(de.Detail, tok)
		}
		if status == http.StatusInternalServerError {
			a.code = "internal_error"
		}
		a.label = a.code
	case onExchange, onLogin, onV1Token:
		a.code, a.label, a.message = oauth, oauth, ""
		if de.Code == codeUnreadable {
			a.message = de.Message
		}
		switch {
		case status != http.StatusUnauthorized:
		case on == onLogin:
			// HTTP requires a challenge on a 401; the credentials travel
			// in the body, so it only names the realm.
			a.challenge = challengeMissing
		case on == onV1Token:
			a.challenge = basicChallenge
		}
	}
	if status == http.StatusInternalServerError && (on == onReport || on == onV1 || on == onAdmin) {
		a.message = msgInternal
	}
	if on == onReport || on == onV1 || on == onAdmin {
		a.problems = problems(de.Problems, s.Limits.MaxProblems)
	}
	return a
}

// logTokenDetail is a refused token's log detail: why, and a reference
// to the token that is no secret.
func logTokenDetail(why, tok string) string {
	if tok != "" {
		return why + " " + tokenRef(tok, "")
	}
	return why
}

// headers sets the answer's challenge and Retry-After.
func (a errorAnswer) headers(w http.ResponseWriter) {
	if a.challenge != "" {
		w.Header().Set("WWW-Authenticate", a.challenge)
	}
	if a.retry != "" {
		w.Header().Set("Retry-After", a.retry)
	}
}

// note fills the request's log line with a refused report or /v1
// request.
func (a errorAnswer) note(r *http.Request, err error) {
	ri := info(r)
	ri.err = err
	if a.status == http.StatusUnauthorized {
		ri.outcome, ri.detail = "invalid_token", a.logDetail
	}
	ri.code, ri.problems = a.label, a.de.Problems
}

// unreadable is a token request the service cannot read: kind decides
// the status (statusOf, onV1Token), msg is the ASCII error_description.
func unreadable(kind error, msg string) error {
	return &domain.Error{Kind: kind, Code: codeUnreadable, Message: msg}
}
