package httpapi

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// SecretRotator gives a partner a new secret (ports.Rotation).
type SecretRotator interface {
	Rotate(ctx context.Context, at ports.RotateAttempt) (ports.Rotated, error)
}

// rotatedReply is the answer of POST /v1/credentials/rotate: the only
// time the new secret is shown.
type rotatedReply struct {
	User               string `json:"user"`
	Secret             string `json:"secret"`
	RotatedAt          string `json:"rotated_at"`
	PreviousValidUntil string `json:"previous_valid_until"`
}

// handleV1Rotate is POST /v1/credentials/rotate: authenticated by a
// Bearer token or by the current credentials in HTTP Basic, throttled as
// a login. Its body, if any, is not read. 200 with the new secret; 409
// rotation_in_progress while the last rotation's overlap lasts.
func (s *Server) handleV1Rotate(w http.ResponseWriter, r *http.Request) {
	ri := info(r)
	ri.client = s.clientAddr(r)
	at := ports.RotateAttempt{Addr: ri.client}
	scheme, _, _ := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	if strings.EqualFold(scheme, "basic") {
		decoded, raw, _, err := basicCredentials(r)
		if err != nil || len(r.Header.Values("Authorization")) > 1 {
			s.v1Error(w, r, domain.InvalidToken("malformed"))
			return
		}
		at.Basic, at.Raw = &decoded, &raw
	} else {
		tok, why := authorizationToken(r)
		if why != "" {
			s.v1Error(w, r, domain.InvalidToken(why))
			return
		}
		at.Token = tok
	}
	out, err := s.Rotation.Rotate(r.Context(), at)
	if err != nil {
		s.v1Error(w, r, err)
		return
	}
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Pragma", "no-cache")
	ri.user = out.User
	ri.detail = "secret rotated; the previous one works until " + out.PreviousUntil.UTC().Format(time.RFC3339)
	writeJSON(w, http.StatusOK, rotatedReply{User: out.User, Secret: out.Secret,
		RotatedAt: out.RotatedAt.UTC().Format(time.RFC3339), PreviousValidUntil: out.PreviousUntil.UTC().Format(time.RFC3339)})
}
