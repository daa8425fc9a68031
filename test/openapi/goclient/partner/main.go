// Command partner is a partner's program built as a partner would build
// it: golang.org/x/oauth2/clientcredentials gets the token from
// /v1/token, and the client that oapi-codegen generates from the served
// document (../partnerapi, written by test/openapi/generators) does the
// rest. Against a running service it stores a report with a PDF, reads it
// back by its Location and through the list call, checks it without
// storing it, and sends it again to see the replay. Every answer is held
// to contract §8; the first that differs ends the program with exit
// status 1, which fails test/openapi/generators.
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

	"github.com/lender/disbursementd/test/openapi/goclient/partnerapi"
	openapi_types "github.com/oapi-codegen/runtime/types"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// amount is sent and must come back as written: a client that sent money
// as a float32 stored 14334901.00 for it.
const amount = "14334900.55"

// pdf is a one-page PDF that passes the service's file checks.
const pdf = "%PDF-1.4\n1 0 obj\n<< >>\nendobj\n%%EOF\n"

func main() {
	base := flag.String("url", "http://127.0.0.1:8080", "the service's base URL")
	user := flag.String("user", "acme", "the partner's user name (the OAuth client id)")
	credit := flag.String("credit", "CR-2026-0100", "the report's Número de Crédito")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("partner: ")
	if err := run(context.Background(), *base, *user, os.Getenv("PARTNER_SECRET"), *credit); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, base, user, secret, credit string) error {
	// HTTP Basic, each part form-urlencoded first (RFC 6749 §2.3.1), as the
	// library does; InHeader instead of the default AutoDetect, so that a
	// refused Basic fails here instead of being retried as form fields.
	cc := clientcredentials.Config{ClientID: user, ClientSecret: secret,
		TokenURL: base + "/v1/token", AuthStyle: oauth2.AuthStyleInHeader}
	tok, err := cc.Token(ctx)
	if err != nil {
		return fmt.Errorf("token: %w", err)
	}
	if left := time.Until(tok.Expiry); tok.Type() != "Bearer" || left < 23*time.Hour || left > 24*time.Hour {
		return fmt.Errorf("token: type %q, expires in %s; want Bearer, 24 h", tok.Type(), left)
	}
	log.Printf("token: Bearer, valid until %s", tok.Expiry.UTC().Format(time.RFC3339))

	// The client sends Authorization: Bearer through the token source.
	api, err := partnerapi.NewClientWithResponses(base, partnerapi.WithHTTPClient(cc.Client(ctx)))
	if err != nil {
		return err
	}
	key := credit + "-v1"
	rep := report(credit)
	created, err := api.CreateReportWithResponse(ctx, &partnerapi.CreateReportParams{IdempotencyKey: &key}, rep)
	if err != nil {
		return fmt.Errorf("create: %w", err)
	}
	if created.JSON201 == nil || created.Headers201 == nil {
		return fmt.Errorf("create: %s %s; want 201 and a receipt", created.Status(), created.Body)
	}
	receipt, location := created.JSON201, created.Headers201.Location
	if location != "/v1/reports/"+strconv.FormatInt(receipt.Id, 10) || receipt.NumeroCredito != credit ||
		receipt.File == nil || !strings.HasSuffix(*receipt.File, ".pdf") || receipt.IdempotencyKey == nil || *receipt.IdempotencyKey != key {
		return fmt.Errorf("create: Location %q, receipt %s", location, created.Body)
	}
	log.Printf("create: 201, Location %s, file %s", location, *receipt.File)

	// Read it back where Location says.
	id, err := strconv.ParseInt(path.Base(location), 10, 64)
	if err != nil {
		return fmt.Errorf("create: Location %q: %w", location, err)
	}
	got, err := api.GetReportWithResponse(ctx, id)
	if err != nil {
		return fmt.Errorf("get: %w", err)
	}
	if got.JSON200 == nil {
		return fmt.Errorf("get %s: %s %s", location, got.Status(), got.Body)
	}
	f := got.JSON200.Fields
	if f.MontoAprobado != amount || f.ValorDesembolsado != amount || f.TasaNominalMensual != "1.8500" ||
		!strings.Contains(string(got.Body), `"Monto Aprobado":"`+amount+`"`) {
		return fmt.Errorf("get %s: stored Monto Aprobado %q, Valor Desembolsado %q, rate %q; sent %s, %s, 1.85",
			location, f.MontoAprobado, f.ValorDesembolsado, f.TasaNominalMensual, amount, amount)
	}
	if got.JSON200.File == nil || *got.JSON200.File != *receipt.File || got.JSON200.Id != id {
		return fmt.Errorf("get %s: %s; not the receipt's report", location, got.Body)
	}
	log.Printf("get: Monto Aprobado %s and Valor Desembolsado %s stored as sent", f.MontoAprobado, f.ValorDesembolsado)

	// Find it as a day's reconciliation would: by credit number and day.
	today := time.Now().UTC().Format(time.DateOnly)
	tomorrow := time.Now().UTC().AddDate(0, 0, 1).Format(time.DateOnly)
	list, err := api.ListReportsWithResponse(ctx, &partnerapi.ListReportsParams{NumeroCredito: &credit, ReceivedFrom: &today, ReceivedTo: &tomorrow})
	if err != nil {
		return fmt.Errorf("list: %w", err)
	}
	if list.JSON200 == nil || len(list.JSON200.Data) != 1 || list.JSON200.Data[0].Id != id || list.JSON200.NextCursor != nil {
		return fmt.Errorf("list: %s %s; want report %d alone", list.Status(), list.Body, id)
	}
	log.Printf("list: report %d, the one page", id)

	valid, err := api.ValidateReportWithResponse(ctx, rep)
	if err != nil {
		return fmt.Errorf("validate: %w", err)
	}
	if valid.JSON200 == nil || !valid.JSON200.Valid {
		return fmt.Errorf("validate: %s %s", valid.Status(), valid.Body)
	}

	// The same report and key again: its first receipt, not a second row.
	again, err := api.CreateReportWithResponse(ctx, &partnerapi.CreateReportParams{IdempotencyKey: &key}, rep)
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	if again.JSON200 == nil || again.Headers200 == nil || again.Headers200.IdempotentReplayed != "true" || again.JSON200.Id != id {
		return fmt.Errorf("replay: %s %s; want 200, Idempotent-Replayed and report %d", again.Status(), again.Body, id)
	}
	log.Printf("replay: 200, Idempotent-Replayed: true, report %d", id)
	fmt.Println("partner: ok")
	return nil
}

// report is the twelve required fields and the PDF, in the generated
// model's types: money and rates are strings.
func report(credit string) partnerapi.Report {
	return partnerapi.Report{
		Convenio:           "CV-001",
		TipoIdentificacion: partnerapi.CC,
		NitCc:              "1020304050",
		PrimerNombre:       "Ana",
		PrimerApellido:     "Pérez",
		NumeroCredito:      credit,
		MontoAprobado:      amount,
		PlazoMeses:         36,
		TasaNominalMensual: "1.85",
		ValorCuotaTotal:    "612345.67",
		FechaDesembolso:    openapi_types.Date{Time: time.Now().UTC().Truncate(24 * time.Hour)},
		ValorDesembolsado:  amount,
		DocumentoSoporte:   &partnerapi.FileDto{Base64String: base64.StdEncoding.EncodeToString([]byte(pdf))},
	}
}
