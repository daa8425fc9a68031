// Command goclient is the partner integration guide's example: it obtains
// a token, sends one report with a PDF, and retries safely with an
// Idempotency-Key. Run: go run ./docs/examples/goclient -url http://127.0.0.1:8080 -user acme -file pagare.pdf
// (password in PARTNER_PASSWORD).
package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"strconv"
	"time"
)

type tokenReply struct {
	Status      int    `json:"status"`
	AccessToken string `json:"access_token"`
	ExpiresIn   int    `json:"expires_in"`
	Error       string `json:"error"`
}

type reportReply struct {
	Status  string `json:"status"`
	Message string `json:"message"`
	ID      int64  `json:"id"`
	File    string `json:"file"`
	Code    string `json:"code"`
	Errors  []struct {
		Field, Code, Message string
	} `json:"errors"`
}

// token exchanges credentials; renew it before expires_in runs out.
func token(base, user, password string) (string, time.Time, error) {
	body, _ := json.Marshal(map[string]string{"user": user, "password": password})
	req, _ := http.NewRequest(http.MethodGet, base+"/api/partner_api.php", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", time.Time{}, err
	}
	defer resp.Body.Close()
	var r tokenReply
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return "", time.Time{}, err
	}
	if resp.StatusCode != http.StatusOK {
		return "", time.Time{}, fmt.Errorf("token: HTTP %d %s", resp.StatusCode, r.Error)
	}
	return r.AccessToken, time.Now().Add(time.Duration(r.ExpiresIn) * time.Second), nil
}

// submit sends a report, retrying with the same Idempotency-Key when a
// retry can help (network error, 409, 503): never stored twice. It waits
// as long as Retry-After says when the service says it (503 overloaded),
// else a little longer after each attempt.
func submit(base, tok, key string, report map[string]any) (reportReply, error) {
	body, _ := json.Marshal(report)
	for attempt := 1; ; attempt++ {
		req, _ := http.NewRequest(http.MethodPost, base+"/api/partner_api.php", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authentication-Type", "bearer "+tok)
		req.Header.Set("Idempotency-Key", key)
		resp, err := http.DefaultClient.Do(req)
		var r reportReply
		wait := time.Duration(attempt*attempt) * time.Second
		if err == nil {
			if s, convErr := strconv.Atoi(resp.Header.Get("Retry-After")); convErr == nil && s > 0 {
				wait = time.Duration(s) * time.Second
			}
			decodeErr := json.NewDecoder(resp.Body).Decode(&r)
			resp.Body.Close()
			switch {
			case decodeErr != nil:
				err = fmt.Errorf("HTTP %d with an unreadable body: %w", resp.StatusCode, decodeErr)
			case resp.StatusCode == http.StatusOK:
				return r, nil
			case resp.StatusCode == http.StatusConflict || resp.StatusCode == http.StatusServiceUnavailable:
				err = fmt.Errorf("HTTP %d: %s", resp.StatusCode, r.Message)
			default: // 400, 401, 413, 415: fix the request; retrying the same cannot help
				return r, fmt.Errorf("HTTP %d: %s", resp.StatusCode, r.Message)
			}
		}
		if attempt == 5 {
			return r, errors.Join(errors.New("giving up after 5 attempts"), err)
		}
		time.Sleep(wait)
	}
}

func main() {
	base := flag.String("url", "http://127.0.0.1:8080", "service base URL")
	user := flag.String("user", "acme", "partner user")
	file := flag.String("file", "", "PDF to attach (optional)")
	flag.Parse()
	tok, expires, err := token(*base, *user, os.Getenv("PARTNER_PASSWORD"))
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("token valid until %s", expires.Format(time.RFC3339))
	credit := "CR-" + strconv.FormatInt(time.Now().Unix(), 10)
	report := map[string]any{
		"Numero de Convenio": "CV-001", "Tipo de identificación": "CC", "Identificación del cliente": "1020304050",
		"Primer Nombre": "Ana", "Primer Apellido": "Pérez", "Número de Crédito": credit,
		"Monto Aprobado": "14334900.00", "Plazo (meses)": 36, "Tasa de Interés Nominal Mes Vencido (%)": "1.85",
		"Valor Cuota Total": "612345.67", "Fecha de Desembolso": time.Now().UTC().Format("2006-01-02"),
		"Valor Desembolsado": "14334900.00",
	}
	if *file != "" {
		data, err := os.ReadFile(*file)
		if err != nil {
			log.Fatal(err)
		}
		report["Documento Soporte"] = map[string]string{"Base64String": base64.StdEncoding.EncodeToString(data), "FileName": "pagare.pdf"}
	}
	r, err := submit(*base, tok, credit+"-v1", report)
	if err != nil {
		for _, e := range r.Errors {
			log.Printf("  %s: %s (%s)", e.Field, e.Message, e.Code)
		}
		log.Fatal(err)
	}
	log.Printf("stored as report %d, file %q", r.ID, r.File)
}
