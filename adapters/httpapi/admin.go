package httpapi

import (
	"context"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// AdminPrefix starts every route of the decision API.
const AdminPrefix = "/admin/v1/"

// The challenge and message of a refused back-office secret: a realm of
// its own, so a partner's client never takes it for the partner API's.
const (
	challengeAdmin = `Bearer realm="` + realm + `-admin"`
	msgAdminToken  = "Se requiere el secreto de un cliente de back office (Authorization: Bearer bo_…); un token de socio no sirve aquí"
)

// AdminHandler returns the decision API of contract §11: POST
// /admin/v1/reports/{id}/decision, authenticated by back-office clients'
// secrets (Backoffice), never by partners' tokens. It is served on the
// internal listener only (http.metrics_addr): Handler never has it.
// Errors are RFC 9457 problems (answerOf, surface onAdmin). Requests run
// at most LookupSlots at once and LookupSlotsPerPartner per client, apart
// from every partner's slots, each within ReportTimeout.
func (s *Server) AdminHandler() http.Handler {
	r := chi.NewRouter()
	rt := &routes{mux: r, allowed: map[string][]string{}}
	rt.notAllowed = rt.problemNotAllowed
	r.Use(func(next http.Handler) http.Handler { return s.observeRoutes(rt, next) })
	gate := newKeyedGate(s.Limits.LookupSlots, s.Limits.LookupSlotsPerPartner)
	rt.handle(http.MethodPost, AdminPrefix+"reports/{id}/decision", noParams(func(w http.ResponseWriter, req *http.Request) {
		s.handleDecision(w, req, gate)
	}, s.adminError))
	r.NotFound(problemNotFound)
	r.MethodNotAllowed(rt.notAllowed)
	return r
}

// adminError answers a failed request of the decision API.
func (s *Server) adminError(w http.ResponseWriter, r *http.Request, err error) {
	a := s.answerOf(r, err, onAdmin)
	a.note(r, err)
	a.headers(w)
	sendProblem(w, r, problemReply{Status: a.status, Detail: a.message, Code: a.code, Errors: a.problems})
}

// decisionMembers are the members of a decision's body.
var decisionMembers = []string{"decision", "reason_code", "reason"}

// handleDecision is POST /admin/v1/reports/{id}/decision: the back-office
// client's decision on report id. 200 with the report's /v1 receipt after
// it (the same decision again included: it changes nothing); 404
// not_found; 409 decision_conflict (the report keeps its decision); 422
// invalid_decision naming decision, reason_code or reason.
func (s *Server) handleDecision(w http.ResponseWriter, r *http.Request, gate *keyedGate) {
	tok, why := authorizationToken(r)
	if why != "" {
		s.adminError(w, r, domain.InvalidToken(why))
		return
	}
	client, err := s.Backoffice.Authenticate(r.Context(), tok)
	if err != nil {
		s.adminError(w, r, err)
		return
	}
	by := domain.DecidedByBackoffice(client.Name)
	info(r).user = by
	// Only the canonical decimal form names a report, as on /v1.
	param := chi.URLParam(r, "id")
	id, err := strconv.ParseInt(param, 10, 64)
	if err != nil || id <= 0 || param != itoa(id) {
		s.adminError(w, r, domain.NewError(domain.ErrNotFound, "not_found", domain.MsgNotFound))
		return
	}
	b, err := s.readSmall(w, r, "backoffice:"+client.Name, decisionMembers...) // before the client's place: a trickle holds none
	if err != nil {
		s.adminError(w, r, err)
		return
	}
	if !gate.enter(client.Name) {
		s.adminError(w, r, s.overloaded("Servicio ocupado: demasiadas decisiones en curso; reintente en un momento"))
		return
	}
	w, finish := holdUntil(w, func() { gate.leave(client.Name) }) // the place is given back before the answer is written
	defer finish()
	req := domain.DecisionRequest{Decision: b.text("decision"), ReasonCode: b.text("reason_code"), Reason: b.text("reason")}
	if err := b.err("invalid_decision", "Decisión"); err != nil {
		s.adminError(w, r, err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.Limits.ReportTimeout)
	defer cancel()
	receipt, did, err := s.Decisions.Decide(ctx, id, req, by)
	s.countDecision(req.Decision, did, err)
	if err != nil {
		s.adminError(w, r, err)
		return
	}
	ri := info(r)
	ri.reportID, ri.outcome = id, string(receipt.Status)
	if did == ports.DecisionAlreadySo {
		ri.detail = "already so"
	}
	writeJSON(w, http.StatusOK, receiptOf(receipt))
}
