// Command partner is a partner's program on the client that ogen generates
// from the served document (../partnerapi, written by
// test/openapi/generators with ../ogen.yml), used as generated: the
// client's own CreateToken gets the token (HTTP Basic, through the
// generated SecuritySource), then it stores a report with a PDF, reads it
// back by its Location, and finds it in the list. Every answer is held to
// contract §8; the first that differs ends the program with exit status 1,
// which fails test/openapi/generators.
//
// Usage: partner -url http://127.0.0.1:8080 -user acme (the password in
// PARTNER_SECRET).
package main

import (
	"context"
	"encoding/base64"
	"flag"
	"fmt"
	"log"
	"os"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/lender/disbursementd/test/openapi/ogenclient/partnerapi"
	"github.com/ogen-go/ogen/ogenerrors"
)

// amount is sent and must come back as written.
const amount = "14334900.55"

// pdf is a one-page PDF that passes the service's file checks.
const pdf = "%PDF-1.4\n1 0 obj\n<< >>\nendobj\n%%EOF\n"

func main() {
	base := flag.String("url", "http://127.0.0.1:8080", "the service's base URL")
	user := flag.String("user", "acme", "the partner's user name (the OAuth client id)")
	credit := flag.String("credit", "CR-2026-0200", "the report's Número de Crédito")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("ogen partner: ")
	if err := run(context.Background(), *base, *user, os.Getenv("PARTNER_SECRET"), *credit); err != nil {
		log.Fatal(err)
	}
}

// credentials is the generated client's SecuritySource: the client id
// and secret for the token call, then the token it returned for the rest.
type credentials struct {
	user, secret, token string
}

func (c *credentials) ClientBasic(context.Context, partnerapi.OperationName) (partnerapi.ClientBasic, error) {
	return partnerapi.ClientBasic{Username: c.user, Password: c.secret}, nil
}

func (c *credentials) BearerAuth(context.Context, partnerapi.OperationName) (partnerapi.BearerAuth, error) {
	if c.token == "" {
		return partnerapi.BearerAuth{}, ogenerrors.ErrSkipClientSecurity
	}
	return partnerapi.BearerAuth{Token: c.token}, nil
}

// PartnerOAuth is the same Bearer token, declared as the OAuth flow; the
// client needs one of the two, and BearerAuth gives it.
func (c *credentials) PartnerOAuth(context.Context, partnerapi.OperationName) (partnerapi.PartnerOAuth, error) {
	return partnerapi.PartnerOAuth{}, ogenerrors.ErrSkipClientSecurity
}

func run(ctx context.Context, base, user, secret, credit string) error {
	creds := &credentials{user: user, secret: secret}
	api, err := partnerapi.NewClient(base, creds)
	if err != nil {
		return err
	}
	res, err := api.CreateToken(ctx, &partnerapi.TokenRequest{GrantType: partnerapi.TokenRequestGrantTypeClientCredentials})
	if err != nil {
		return fmt.Errorf("token: %w", err)
	}
	issued, ok := res.(*partnerapi.V1TokenIssuedHeaders)
	if !ok {
		return fmt.Errorf("token: %T %+v; want 200", res, res)
	}
	// The generators stage's Postman run rotated this partner's secret
	// first (POST /v1/credentials/rotate, issue 36): the secret used here
	// is the old one, whose tokens end with the rotation's overlap (24 h
	// after it), a few seconds short of 86400. Newman's createToken holds
	// the full 86400 before the rotation.
	if t := issued.Response; t.TokenType != "Bearer" || t.ExpiresIn <= 86400-300 || t.ExpiresIn > 86400 || issued.CacheControl != "no-store" {
		return fmt.Errorf("token: type %q, expires_in %d, Cache-Control %q", t.TokenType, t.ExpiresIn, issued.CacheControl)
	}
	creds.token = issued.Response.AccessToken
	log.Printf("token: Bearer, expires in %d s", issued.Response.ExpiresIn)

	key := credit + "-v1"
	cres, err := api.CreateReport(ctx, report(credit), partnerapi.CreateReportParams{IdempotencyKey: partnerapi.NewOptString(key)})
	if err != nil {
		return fmt.Errorf("create: %w", err)
	}
	created, ok := cres.(*partnerapi.V1ReportCreatedHeaders)
	if !ok {
		return fmt.Errorf("create: %T %+v; want 201", cres, cres)
	}
	receipt, location := created.Response, created.Location
	file, _ := receipt.File.Get()
	if location != "/v1/reports/"+strconv.FormatInt(receipt.ID, 10) || receipt.NumeroCredito != credit || !strings.HasSuffix(file, ".pdf") {
		return fmt.Errorf("create: Location %q, receipt %+v", location, receipt)
	}
	log.Printf("create: 201, Location %s, file %s", location, file)

	id, err := strconv.ParseInt(path.Base(location), 10, 64)
	if err != nil {
		return fmt.Errorf("create: Location %q: %w", location, err)
	}
	gres, err := api.GetReport(ctx, partnerapi.GetReportParams{ID: id})
	if err != nil {
		return fmt.Errorf("get: %w", err)
	}
	got, ok := gres.(*partnerapi.V1ReportDetailHeaders)
	if !ok {
		return fmt.Errorf("get %s: %T %+v; want 200", location, gres, gres)
	}
	f := got.Response.Fields
	if got.Response.ID != id || f.MontoAprobado != amount || f.ValorDesembolsado != amount || f.TasaNominalMensual != "1.8500" {
		return fmt.Errorf("get %s: report %d, Monto Aprobado %q, Valor Desembolsado %q, rate %q; sent %s, %s, 1.85",
			location, got.Response.ID, f.MontoAprobado, f.ValorDesembolsado, f.TasaNominalMensual, amount, amount)
	}
	log.Printf("get: Monto Aprobado %s stored as sent", f.MontoAprobado)

	lres, err := api.ListReports(ctx, partnerapi.ListReportsParams{NumeroCredito: partnerapi.NewOptString(credit)})
	if err != nil {
		return fmt.Errorf("list: %w", err)
	}
	page, ok := lres.(*partnerapi.ReceiptPageHeaders)
	if !ok {
		return fmt.Errorf("list: %T %+v; want 200", lres, lres)
	}
	if len(page.Response.Data) != 1 || page.Response.Data[0].ID != id || !page.Response.NextCursor.Null {
		return fmt.Errorf("list: %+v; want report %d alone", page.Response, id)
	}
	log.Printf("list: report %d, the one page", id)
	fmt.Println("ogen partner: ok")
	return nil
}

// report is the twelve required fields and the PDF, in the generated
// model's types.
func report(credit string) *partnerapi.Report {
	return &partnerapi.Report{
		Convenio:           "CV-001",
		TipoIdentificacion: partnerapi.TipoIdentificacionCC,
		NitCc:              "1020304050",
		PrimerNombre:       "Ana",
		PrimerApellido:     "Pérez",
		NumeroCredito:      partnerapi.CreditNumber(credit),
		MontoAprobado:      amount,
		PlazoMeses:         36,
		TasaNominalMensual: "1.85",
		ValorCuotaTotal:    "612345.67",
		FechaDesembolso:    partnerapi.Date(time.Now().UTC().Truncate(24 * time.Hour)),
		ValorDesembolsado:  amount,
		DocumentoSoporte: partnerapi.NewOptFileDto(partnerapi.FileDto{
			Base64String: base64.StdEncoding.EncodeToString([]byte(pdf)),
			FileName:     partnerapi.NewOptNilString("pagare.pdf"),
		}),
	}
}
