package e2e

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/storetest"
	"github.com/lender/disbursementd/test/testkit"
)

// TestReportErrors covers each 400, 413 and 415 of the contract, with the
// field named in errors[] where there is one.
func TestReportErrors(t *testing.T) {
	t.Parallel()
	in := testkit.MustStart(t, func(c *config.Config) {
		c.HTTP.MaxBodyBytes = 256 << 10
		c.Uploads.MaxFileBytes = 64 << 10
	})
	in.AddUser(t, testkit.Partner, testkit.Nit, testkit.Password)
	tok := in.Token(t, testkit.Partner, testkit.Password)
	today := time.Now()
	with := func(mut func(map[string]any)) []byte {
		b := fixture.Minimal(today, "CR-ERR-1")
		mut(b)
		return testkit.MustJSON(b)
	}
	pdfDto := func(data []byte) map[string]any { return fixture.FileDto(data, "a.pdf") }
	for _, tt := range []struct {
		name        string
		contentType string
		body        []byte
		status      int
		field, code string
	}{
		{"not JSON", "", []byte("user=acme"), 400, "", "invalid_json"},
		{"array at the top", "", []byte(`[{"a":1}]`), 400, "", "invalid_json"},
		{"trailing garbage", "", append(with(func(map[string]any) {}), []byte(" {}")...), 400, "", "invalid_json"},
		{"byte order mark", "", append([]byte("\xEF\xBB\xBF"), with(func(map[string]any) {})...), 400, "", "invalid_json"},
		{"invalid UTF-8", "", []byte("{\"Primer Nombre\":\"\xff\"}"), 400, "", "invalid_json"},
		{"unknown field", "", with(func(b map[string]any) { b["Color Favorito"] = "azul" }), 400, "Color Favorito", "unknown_field"},
		{"duplicate field", "", []byte(strings.Replace(string(with(func(map[string]any) {})), "{", `{"NUMERO DE CREDITO":"CR-X",`, 1)), 400, "Número de Crédito", "duplicate_field"},
		{"missing required", "", with(func(b map[string]any) { delete(b, "Monto Aprobado") }), 400, "Monto Aprobado", "required"},
		{"wrong type", "", with(func(b map[string]any) { b["Plazo (meses)"] = []int{36} }), 400, "Plazo (meses)", "invalid_type"},
		{"wrong format", "", with(func(b map[string]any) { b["Fecha de Desembolso"] = "26-11-2026" }), 400, "Fecha de Desembolso", "invalid_format"},
		{"exponent money", "", []byte(strings.Replace(string(with(func(map[string]any) {})), `"14334900.00"`, `1.4334900e7`, 1)), 400, "Monto Aprobado", "invalid_format"},
		{"credit number with a path", "", with(func(b map[string]any) { b["Número de Crédito"] = "../../etc/passwd" }), 400, "Número de Crédito", "invalid_format"},
		{"bad base64", "", with(func(b map[string]any) { b["Documento Soporte"] = map[string]any{"Base64String": "%%%not base64"} }), 400, "Documento Soporte", "invalid_file"},
		{"type not allowed", "", with(func(b map[string]any) {
			b["Documento Soporte"] = map[string]any{"Base64String": base64.StdEncoding.EncodeToString([]byte("<html><script>alert(1)</script>"))}
		}), 400, "Documento Soporte", "file_type_not_allowed"},
		{"declared type contradicts content", "", with(func(b map[string]any) {
			b["Documento Soporte"] = map[string]any{"Base64String": base64.StdEncoding.EncodeToString(fixture.PNG), "Extension": "pdf"}
		}), 400, "Documento Soporte", "file_type_mismatch"},
		{"file over the limit", "", with(func(b map[string]any) { b["Documento Soporte"] = pdfDto(fixture.PDF(100 << 10)) }), 413, "Documento Soporte", "file_too_large"},
		{"body over the limit", "", with(func(b map[string]any) { b["Documento Soporte"] = pdfDto(fixture.PDF(300 << 10)) }), 413, "", "body_too_large"},
		{"wrong content type", "text/plain", with(func(map[string]any) {}), 415, "", "unsupported_media_type"},
		{"form content type", "application/x-www-form-urlencoded", with(func(map[string]any) {}), 415, "", "unsupported_media_type"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := map[string]string{"Authentication-Type": "Bearer " + tok, "Content-Type": "application/json; charset=utf-8"}
			if tt.contentType != "" {
				h["Content-Type"] = tt.contentType
			}
			r := testkit.Call(t, "POST", in.URL+"/api/partner_api.php", h, tt.body)
			code := tt.code
			if tt.field != "" {
				code = "invalid_report" // the field's own code is in errors[]
			}
			if r.Status != tt.status || r.Body["status"] != "400" || r.Body["code"] != code {
				t.Fatalf("%d %s; want HTTP %d, status \"400\", code %s", r.Status, r.Raw, tt.status, code)
			}
			if msg, _ := r.Body["message"].(string); msg == "" {
				t.Errorf("no message: %s", r.Raw)
			}
			if r.Header.Get("Access-Control-Allow-Origin") != "*" {
				t.Error("no CORS header on an error")
			}
			if tt.field == "" {
				return
			}
			errs, _ := r.Body["errors"].([]any)
			for _, e := range errs {
				m := e.(map[string]any)
				if m["field"] == tt.field && m["code"] == tt.code && m["message"] != "" {
					return
				}
			}
			t.Fatalf("errors[] lacks %s/%s: %s", tt.field, tt.code, r.Raw)
		})
	}
	if n := storetest.CountReports(t, in.Config.Store.Driver, in.Config.Store.DSN); n != 0 {
		t.Fatalf("%d rows stored by refused reports", n)
	}
}

// TestRoutingAndCORS: unknown paths and methods answer JSON; every
// response carries CORS; the preflight answers 204.
func TestRoutingAndCORS(t *testing.T) {
	t.Parallel()
	in := testkit.MustStart(t)
	pre := testkit.Call(t, "OPTIONS", in.URL+"/api/partner_api.php", map[string]string{
		"Origin": "https://partner.example", "Access-Control-Request-Method": "POST",
		"Access-Control-Request-Headers": "Authentication-Type, Content-Type"}, nil)
	if pre.Status != 204 || pre.Header.Get("Access-Control-Allow-Origin") != "*" ||
		pre.Header.Get("Access-Control-Allow-Methods") != "GET, POST, OPTIONS" ||
		!strings.Contains(pre.Header.Get("Access-Control-Allow-Headers"), "Authentication-Type") ||
		!strings.Contains(pre.Header.Get("Access-Control-Allow-Headers"), "Idempotency-Key") ||
		pre.Header.Get("Access-Control-Max-Age") == "" || !strings.Contains(pre.Header.Get("Access-Control-Expose-Headers"), "X-Request-Id") {
		t.Fatalf("preflight: %d %v", pre.Status, pre.Header)
	}
	for _, tt := range []struct {
		method, path string
		status       int
	}{
		{"GET", "/nope", 404},
		{"PUT", "/api/partner_api.php", 405},
		{"DELETE", "/api/partner_api.php", 405},
		{"GET", "/healthz", 200},
		{"POST", "/api/partner_api.php", 401},
	} {
		r := testkit.Call(t, tt.method, in.URL+tt.path, nil, nil)
		if r.Status != tt.status || r.Header.Get("Access-Control-Allow-Origin") != "*" || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
			t.Errorf("%s %s: %d %v %s", tt.method, tt.path, r.Status, r.Header, r.Raw)
		}
		if tt.status >= 404 && r.Body["status"] != float64(tt.status) {
			t.Errorf("%s %s: body status %v, want %d", tt.method, tt.path, r.Body["status"], tt.status)
		}
		if len(r.Header.Get("X-Request-Id")) < 16 {
			t.Errorf("%s %s: no X-Request-Id", tt.method, tt.path)
		}
	}
	ready := testkit.Call(t, "GET", in.URL+"/readyz", nil, nil)
	if ready.Status != 200 || ready.Body["status"] != "ready" {
		t.Errorf("readyz: %d %s", ready.Status, ready.Raw)
	}
	jwks := testkit.Call(t, "GET", in.URL+"/.well-known/jwks.json", nil, nil)
	keys, _ := jwks.Body["keys"].([]any)
	if jwks.Status != 200 || len(keys) != 1 || keys[0].(map[string]any)["kid"] != in.Keys.KeyID() || keys[0].(map[string]any)["d"] != nil {
		t.Errorf("jwks: %d %s", jwks.Status, jwks.Raw)
	}
}
