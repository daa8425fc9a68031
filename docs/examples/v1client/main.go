// Command v1client is the partner guide's Go example for /v1: a token from
// golang.org/x/oauth2/clientcredentials, one report with a PDF, sent with
// an Idempotency-Key and retried safely, and the report read back where
// Location says. Run:
//
//	BASE_URL=https://HOST CLIENT_ID=acme CLIENT_SECRET='...' go run ./docs/examples/v1client pagare.pdf
package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"strconv"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

func main() {
	base := os.Getenv("BASE_URL")
	cc := clientcredentials.Config{
		ClientID:     os.Getenv("CLIENT_ID"),
		ClientSecret: os.Getenv("CLIENT_SECRET"),
		TokenURL:     base + "/v1/token",
		AuthStyle:    oauth2.AuthStyleInHeader, // HTTP Basic, each part form-encoded first
	}
	// The client gets a token, renews it before it expires, and sends
	// Authorization: Bearer on every request.
	client := cc.Client(context.Background())

	pdf, err := os.ReadFile(os.Args[1])
	if err != nil {
		log.Fatal(err)
	}
	// Money and rates are JSON strings: a float cannot hold every amount.
	report := map[string]any{
		"Numero de Convenio":                      "CV-001",
		"Tipo de identificación":                  "CC",
		"Identificación del cliente":              "1020304050",
		"Primer Nombre":                           "Ana",
		"Primer Apellido":                         "Pérez",
		"Número de Crédito":                       "CR-2026-0012",
		"Monto Aprobado":                          "14334900.55",
		"Plazo (meses)":                           36,
		"Tasa de Interés Nominal Mes Vencido (%)": "1.85",
		"Valor Cuota Total":                       "612345.67",
		"Fecha de Desembolso":                     time.Now().UTC().Format(time.DateOnly),
		"Valor Desembolsado":                      "14334900.55",
		"Documento Soporte": map[string]string{
			"Base64String": base64.StdEncoding.EncodeToString(pdf), "FileName": "pagare.pdf"},
	}
	body, _ := json.Marshal(report)
	resp, receipt, err := send(client, base+"/v1/reports", "CR-2026-0012-v1", body)
	if err != nil {
		log.Fatal(err)
	}
	// 201: stored now, Location names it. 200 with Idempotent-Replayed:
	// stored before; the receipt's id names it.
	var r struct{ ID int64 }
	_ = json.Unmarshal(receipt, &r)
	location := resp.Header.Get("Location")
	if location == "" {
		location = "/v1/reports/" + strconv.FormatInt(r.ID, 10)
	}
	log.Printf("%s, %s, Idempotent-Replayed %q: %s", resp.Status, location, resp.Header.Get("Idempotent-Replayed"), receipt)

	// The report as stored.
	got, err := client.Get(base + location)
	if err != nil {
		log.Fatal(err)
	}
	defer got.Body.Close()
	var stored struct{ Fields map[string]any }
	if err := json.NewDecoder(got.Body).Decode(&stored); err != nil || got.StatusCode != http.StatusOK {
		log.Fatalf("GET %s: %s %v", location, got.Status, err)
	}
	log.Printf("GET %s: Monto Aprobado %v", location, stored.Fields["Monto Aprobado"])
}

// send posts the report. It retries what a retry can fix (no answer, 409,
// 503) with the same Idempotency-Key, after Retry-After when there is one:
// never with a new key, since after a 503 outcome_unknown the first send
// may have been stored. Any other error is a problem+json to fix first.
func send(client *http.Client, url, key string, body []byte) (*http.Response, []byte, error) {
	for attempt := 1; ; attempt++ {
		req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", key)
		resp, err := client.Do(req)
		wait := time.Duration(attempt*attempt) * time.Second
		if err == nil {
			answer, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			switch {
			case resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusCreated:
				return resp, answer, nil
			case resp.StatusCode != http.StatusConflict && resp.StatusCode != http.StatusServiceUnavailable:
				return resp, answer, fmt.Errorf("%s: %s", resp.Status, answer) // 4xx: code and errors[] say what to fix
			}
			if s, convErr := strconv.Atoi(resp.Header.Get("Retry-After")); convErr == nil {
				wait = time.Duration(s) * time.Second
			}
			err = fmt.Errorf("%s: %s", resp.Status, answer)
		}
		if attempt == 5 {
			return nil, nil, fmt.Errorf("giving up after %d attempts: %w", attempt, err)
		}
		time.Sleep(wait)
	}
}
