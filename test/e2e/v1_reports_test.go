package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/testkit"
)

// v1BearerRules: the token of the other /v1 routes (contract §8,
// "Authentication").
func v1BearerRules(t *testing.T, e *v1Env) {
	body := testkit.MustJSON(fixture.Minimal(time.Now(), "CR-BEARER-1"))
	t.Run("bearer: a missing token is 401 invalid_token with a challenge without error", func(t *testing.T) {
		for name, h := range map[string]map[string]string{
			"no header": {"Content-Type": "application/json"},
			// Authentication-Type is not read on /v1.
			"the legacy header":  {"Content-Type": "application/json", "Authentication-Type": "bearer " + e.acme},
			"another scheme":     {"Content-Type": "application/json", "Authorization": testkit.BasicAuth(testkit.Partner, testkit.Password)},
			"a token, no scheme": {"Content-Type": "application/json", "Authorization": e.acme},
		} {
			t.Run(name, func(t *testing.T) {
				r := testkit.Call(t, http.MethodPost, e.in.URL+"/v1/reports", h, body)
				mustProblem(t, r, 401, "invalid_token")
				if got := r.Header.Get("WWW-Authenticate"); got != `Bearer realm="disbursementd"` {
					t.Fatalf("WWW-Authenticate %q", got)
				}
			})
		}
	})
	t.Run("bearer: an invalid token is 401 invalid_token with error=invalid_token", func(t *testing.T) {
		for name, h := range map[string]string{
			"forged":         "Bearer " + e.acme[:len(e.acme)-4] + "AAAA",
			"not a JWT":      "Bearer abc",
			"no token":       "Bearer ",
			"two tokens":     "Bearer " + e.acme + " " + e.acme,
			"padded base64u": "Bearer " + e.acme + "=",
		} {
			t.Run(name, func(t *testing.T) {
				for _, path := range []string{"/v1/reports", "/v1/reports/1"} {
					method := http.MethodPost
					if path != "/v1/reports" {
						method = http.MethodGet
					}
					r := testkit.Call(t, method, e.in.URL+path, map[string]string{"Content-Type": "application/json", "Authorization": h}, body)
					mustProblem(t, r, 401, "invalid_token")
					if got := r.Header.Get("WWW-Authenticate"); got != `Bearer realm="disbursementd", error="invalid_token"` {
						t.Fatalf("%s: WWW-Authenticate %q", path, got)
					}
				}
			})
		}
	})
	t.Run("bearer: the scheme is case-insensitive", func(t *testing.T) {
		for _, scheme := range []string{"bearer", "BEARER", "bEaReR"} {
			r := testkit.Call(t, http.MethodGet, e.in.URL+"/v1/reports", map[string]string{"Authorization": scheme + " " + e.acme}, nil)
			if r.Status != http.StatusOK {
				t.Fatalf("%s: %d %s", scheme, r.Status, r.Raw)
			}
		}
	})
}

var receiptTime = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$`)

// v1ReportRules: POST /v1/reports and /v1/reports/validate.
func v1ReportRules(t *testing.T, e *v1Env) {
	today := time.Now().UTC()
	t.Run("report: 201 with Location and the receipt, which the look-up repeats with the stored fields", func(t *testing.T) {
		before := time.Now().UTC().Truncate(time.Millisecond)
		r := e.post(t, "/v1/reports", e.acme, testkit.MustJSON(fixture.FullV1(today, "CR-V1-0001", fixture.PDF(8<<10))), "Idempotency-Key", "v1-full-1")
		if r.Status != http.StatusCreated {
			t.Fatalf("%d %s", r.Status, r.Raw)
		}
		id := int64(r.Body["id"].(float64))
		at, err := time.Parse(time.RFC3339Nano, fmt.Sprint(r.Body["received_at"]))
		file, _ := r.Body["file"].(string)
		if r.Header.Get("Location") != fmt.Sprintf("/v1/reports/%d", id) || r.Body["numero_credito"] != "CR-V1-0001" ||
			r.Body["idempotency_key"] != "v1-full-1" || !strings.HasPrefix(file, "partner_CR-V1-0001_") || !strings.HasSuffix(file, ".pdf") ||
			!receiptTime.MatchString(fmt.Sprint(r.Body["received_at"])) || err != nil || at.Before(before) || at.After(time.Now()) {
			t.Fatalf("receipt %s, Location %q", r.Raw, r.Header.Get("Location"))
		}
		got := e.get(t, r.Header.Get("Location"), e.acme)
		if got.Status != http.StatusOK {
			t.Fatalf("GET Location: %d %s", got.Status, got.Raw)
		}
		for _, k := range []string{"id", "numero_credito", "file", "received_at", "idempotency_key"} {
			if fmt.Sprint(got.Body[k]) != fmt.Sprint(r.Body[k]) {
				t.Errorf("%s: the look-up says %v, the 201 said %v", k, got.Body[k], r.Body[k])
			}
		}
		fields, _ := got.Body["fields"].(map[string]any)
		full := fixture.Full(today)
		if len(fields) != len(full) {
			t.Errorf("%d fields, want %d (every field but the file)", len(fields), len(full))
		}
		for _, v := range full {
			want := fixture.FullV1(today, "CR-V1-0001", nil)[v.Partner]
			if n, ok := want.(int); ok {
				want = float64(n)
			}
			if fields[v.Partner] != want {
				t.Errorf("fields[%s] = %#v, want %#v", v.Partner, fields[v.Partner], want)
			}
		}
		if fields["Monto Aprobado"] != "14334900.00" || fields["Tasa de Interés Nominal Mes Vencido (%)"] != "1.8500" || fields["Cliente es PEP"] != false {
			t.Errorf("stored forms: %v %v %v", fields["Monto Aprobado"], fields["Tasa de Interés Nominal Mes Vencido (%)"], fields["Cliente es PEP"])
		}
	})
	t.Run("report: the same report again is 200 with Idempotent-Replayed, the same Location and the first receipt", func(t *testing.T) {
		body := testkit.MustJSON(fixture.Minimal(today, "CR-V1-0002"))
		for _, key := range []string{"", "v1-replay-1"} {
			first := e.post(t, "/v1/reports", e.acme, body, "Idempotency-Key", key)
			again := e.post(t, "/v1/reports", e.acme, body, "Idempotency-Key", key)
			if first.Status != http.StatusCreated || again.Status != http.StatusOK || again.Header.Get("Idempotent-Replayed") != "true" ||
				string(again.Raw) != string(first.Raw) || again.Header.Get("Location") != first.Header.Get("Location") {
				t.Fatalf("key %q: %d %s, then %d %v %s", key, first.Status, first.Raw, again.Status, again.Header, again.Raw)
			}
			if want := any(key); key == "" && first.Body["idempotency_key"] != nil || key != "" && first.Body["idempotency_key"] != want {
				t.Fatalf("key %q: the receipt's idempotency_key is %v", key, first.Body["idempotency_key"])
			}
		}
	})
	t.Run("report: a report stored on one path and sent again on the other is a replay in the asking path's shape", func(t *testing.T) {
		legacyBody := fixture.Minimal(today, "CR-V1-0003")
		legacyBody["Monto Aprobado"] = json.Number("14334900.00") // a number, as the legacy path takes it
		first := e.in.Report(t, e.legacyAcmeTok, testkit.MustJSON(legacyBody))
		again := e.post(t, "/v1/reports", e.acme, testkit.MustJSON(fixture.Minimal(today, "CR-V1-0003")))
		if first.Status != http.StatusOK || again.Status != http.StatusOK || again.Header.Get("Idempotent-Replayed") != "true" ||
			again.Body["id"] != first.Body["id"] || again.Body["numero_credito"] != "CR-V1-0003" || again.Body["idempotency_key"] != nil ||
			!receiptTime.MatchString(fmt.Sprint(again.Body["received_at"])) {
			t.Fatalf("legacy then /v1: %s, then %d %s", first.Raw, again.Status, again.Raw)
		}
		v1First := e.post(t, "/v1/reports", e.acme, testkit.MustJSON(fixture.Minimal(today, "CR-V1-0004")), "Idempotency-Key", "v1-cross-1")
		legacyAgain := e.in.Report(t, e.legacyAcmeTok, testkit.MustJSON(fixture.Minimal(today, "CR-V1-0004")), "Idempotency-Key", "v1-cross-1")
		if v1First.Status != http.StatusCreated || legacyAgain.Status != http.StatusOK || legacyAgain.Header.Get("Idempotent-Replayed") != "true" ||
			legacyAgain.Body["id"] != v1First.Body["id"] || legacyAgain.Body["status"] != "200" {
			t.Fatalf("/v1 then legacy: %s, then %d %s", v1First.Raw, legacyAgain.Status, legacyAgain.Raw)
		}
	})
	t.Run("report: money or a rate as a JSON number is 422 number_not_allowed, and nothing is stored", func(t *testing.T) {
		rows := e.rows(t)
		body := fixture.Minimal(today, "CR-V1-0005")
		body["Monto Aprobado"] = json.Number("14334900.55")
		body["Tasa de Interés Nominal Mes Vencido (%)"] = json.Number("1.85")
		for _, path := range []string{"/v1/reports", "/v1/reports/validate"} {
			r := e.post(t, path, e.acme, testkit.MustJSON(body))
			mustProblem(t, r, 422, "invalid_report")
			errs := problemEntries(r)
			if len(errs) != 2 || errs["Monto Aprobado"] != "number_not_allowed" || errs["Tasa de Interés Nominal Mes Vencido (%)"] != "number_not_allowed" {
				t.Fatalf("%s: errors %s", path, r.Raw)
			}
		}
		if e.rows(t) != rows {
			t.Fatal("a refused report was stored")
		}
	})
	t.Run("validate: every check, nothing stored, no file, no idempotency record", func(t *testing.T) {
		rows, files := e.rows(t), e.files(t)
		body := testkit.MustJSON(fixture.FullV1(today, "CR-V1-0006", fixture.PDF(4<<10)))
		r := e.post(t, "/v1/reports/validate", e.acme, body, "Idempotency-Key", "v1-validate-1")
		if r.Status != http.StatusOK || string(r.Raw) != `{"valid":true}`+"\n" {
			t.Fatalf("%d %s", r.Status, r.Raw)
		}
		if e.rows(t) != rows || e.files(t) != files {
			t.Fatalf("validate kept something: rows %d -> %d, files %d -> %d", rows, e.rows(t), files, e.files(t))
		}
		// No record: the key is free for another report, and the same
		// report is stored, not replayed.
		other := e.post(t, "/v1/reports", e.acme, testkit.MustJSON(fixture.Minimal(today, "CR-V1-0007")), "Idempotency-Key", "v1-validate-1")
		same := e.post(t, "/v1/reports", e.acme, body)
		if other.Status != http.StatusCreated || same.Status != http.StatusCreated {
			t.Fatalf("after validate: %d %s / %d %s", other.Status, other.Raw, same.Status, same.Raw)
		}
		// Every check: a bad file and a bad field, as POST /v1/reports finds them.
		bad := fixture.Minimal(today, "CR-V1-0008")
		bad["Documento Soporte"] = fixture.FileDto([]byte("not a pdf at all"), "")
		bad["Plazo (meses)"] = 0
		v, p := e.post(t, "/v1/reports/validate", e.acme, testkit.MustJSON(bad)), e.post(t, "/v1/reports", e.acme, testkit.MustJSON(bad))
		mustProblem(t, v, 422, "invalid_report")
		if fmt.Sprint(problemEntries(v)) != fmt.Sprint(problemEntries(p)) || len(problemEntries(v)) != 2 {
			t.Fatalf("validate found %s, the report %s", v.Raw, p.Raw)
		}
		// An Idempotency-Key is not read, not even to check its form.
		if r := e.post(t, "/v1/reports/validate", e.acme, testkit.MustJSON(fixture.Minimal(today, "CR-V1-0009")), "Idempotency-Key", strings.Repeat("k", 256)); r.Status != http.StatusOK {
			t.Fatalf("a malformed key on validate: %d %s", r.Status, r.Raw)
		}
	})
}

// problemEntries maps a problem's errors[] entries, field to code.
func problemEntries(r testkit.Reply) map[string]string {
	out := map[string]string{}
	list, _ := r.Body["errors"].([]any)
	for _, x := range list {
		m, _ := x.(map[string]any)
		out[fmt.Sprint(m["field"])] = fmt.Sprint(m["code"])
	}
	return out
}
