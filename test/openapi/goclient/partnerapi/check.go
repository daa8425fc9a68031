// Package partnerapi is the Go client that oapi-codegen generates from the
// served OpenAPI document (partnerapi.gen.go, written by
// test/openapi/generators and never committed). This file uses it as a
// partner's program would, so the check fails to compile when the document
// stops giving generators what a partner needs: money as strings, one
// member per field, typed receipts and headers.
package partnerapi

import (
	"context"
	"fmt"
	"net/http"
	"time"

	openapi_types "github.com/oapi-codegen/runtime/types"
)

// Money and rates are strings: a float cannot reach the wire. (When the
// document said "number or string", money became a float32, and
// 14334900.55 was sent as 14334901.)
var (
	_ Money         = "14334900.55"
	_ PositiveMoney = "14334900.55"
	_ Rate          = "1.8500"
)

// exampleReport is a v1 report with its twelve required fields and a file,
// each in the type the generated model gives it.
func exampleReport() Report {
	return Report{
		Convenio:           "CV-001",
		TipoIdentificacion: CC,
		NitCc:              "1020304050",
		PrimerNombre:       "Ana",
		PrimerApellido:     "Pérez",
		NumeroCredito:      "CR-2026-0002",
		MontoAprobado:      "14334900.55",
		PlazoMeses:         36,
		TasaNominalMensual: "1.85",
		ValorCuotaTotal:    "612345.67",
		FechaDesembolso:    openapi_types.Date{Time: time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)},
		ValorDesembolsado:  "14334900.55",
		DocumentoSoporte:   &FileDto{Base64String: "JVBERi0xLjQK"},
	}
}

// Submit gets a token with the client credentials form and stores the
// example report with it, once, returning its receipt and Location (empty
// when the report was a replay).
func Submit(ctx context.Context, server, user, password string) (*Receipt, string, error) {
	c, err := NewClientWithResponses(server)
	if err != nil {
		return nil, "", err
	}
	tok, err := c.CreateTokenWithFormdataBodyWithResponse(ctx, CreateTokenFormdataRequestBody{
		GrantType: ClientCredentials, ClientId: &user, ClientSecret: &password,
	})
	if err != nil {
		return nil, "", err
	}
	if tok.JSON200 == nil {
		return nil, "", fmt.Errorf("token: %s", tok.Status())
	}
	bearer := func(_ context.Context, req *http.Request) error {
		req.Header.Set("Authorization", "Bearer "+tok.JSON200.AccessToken)
		return nil
	}
	key := "CR-2026-0002-v1"
	r, err := c.CreateReportWithResponse(ctx, &CreateReportParams{IdempotencyKey: &key}, exampleReport(), bearer)
	switch {
	case err != nil:
		return nil, "", err
	case r.JSON201 != nil:
		return r.JSON201, r.Headers201.Location, nil
	case r.JSON200 != nil:
		return r.JSON200, "", nil
	case r.ApplicationproblemJSON422 != nil:
		return nil, "", fmt.Errorf("report: %s: %d field problems", r.ApplicationproblemJSON422.Detail, len(*r.ApplicationproblemJSON422.Errors))
	}
	return nil, "", fmt.Errorf("report: %s", r.Status())
}
