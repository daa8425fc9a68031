package e2e

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lender/disbursementd/cmd/disbursementd/app"
	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/storetest"
	"github.com/lender/disbursementd/test/testkit"
)

// The surfaces of contract §11 on a real instance (SQLite file, real
// listeners, the real binary's CLI in process): what the back office
// decides reaches the partner's receipts, events and webhooks, and the
// decision API is on the internal listener only. Every exchange with
// http.addr is checked against openapi.yaml (watch).

// s11Env points the CLI (and config.Load) at the database, dir's SQLite
// file or the MySQL DSN mysql when not "", with the delivery settings
// these tests need, through DISB_ variables as an operator sets them; the
// working directory is a fresh one.
func s11Env(t *testing.T, dir, mysql string) {
	t.Helper()
	t.Chdir(t.TempDir())
	t.Setenv("DISB_STORE_DSN", filepath.Join(dir, "disbursement.db"))
	if mysql != "" {
		t.Setenv("DISB_STORE_DRIVER", "mysql")
		t.Setenv("DISB_STORE_DSN", mysql)
	}
	t.Setenv("DISB_EVENTS_LIST_DELAY", "0s")
	t.Setenv("DISB_WEBHOOKS_ALLOW_INSECURE_HOSTS", "127.0.0.1")
	t.Setenv("DISB_WEBHOOKS_POLL_INTERVAL", "100ms")
}

// startS11 starts an instance whose configuration is the environment's
// (s11Env) with the test instance's own places, and the decision API on
// an internal listener; on a fresh MariaDB database with mysql.
func startS11(t *testing.T, mysql bool) *testkit.Instance {
	t.Helper()
	dir, dsn := t.TempDir(), ""
	if mysql {
		dsn = storetest.MustCreateDatabase(t)
	}
	s11Env(t, dir, dsn)
	loaded, err := config.Load("")
	if err != nil {
		t.Fatal(err)
	}
	return testkit.MustStart(t, func(c *config.Config) {
		l := *loaded
		l.HTTP.Addr, l.HTTP.MetricsAddr, l.HTTP.ShutdownGrace, l.HTTP.LookupRatePerPartner = c.HTTP.Addr, "127.0.0.1:0", c.HTTP.ShutdownGrace, c.HTTP.LookupRatePerPartner
		l.Uploads.Dir, l.Auth.PrivateKeyFile, l.Auth.BcryptCost, l.Auth.UserStaleness, l.Log.Format = c.Uploads.Dir, c.Auth.PrivateKeyFile, c.Auth.BcryptCost, c.Auth.UserStaleness, c.Log.Format
		l.GenerateKeys = false
		*c = l
		if !mysql {
			c.Store.DSN = filepath.Join(dir, "disbursement.db")
		}
	})
}

// v1Report stores a report through POST /v1/reports and returns its id.
func v1Report(t *testing.T, in *testkit.Instance, tok, credit string) int64 {
	t.Helper()
	r := testkit.Call(t, "POST", in.URL+"/v1/reports", map[string]string{"Authorization": "Bearer " + tok, "Content-Type": "application/json"},
		testkit.MustJSON(fixture.FullV1(time.Now(), credit, nil)))
	if r.Status != 201 || r.Body["status"] != "received" {
		t.Fatalf("POST /v1/reports: %d %s", r.Status, r.Raw)
	}
	return int64(r.Body["id"].(float64))
}

// backofficeSecret adds a back-office client with the CLI and returns its
// secret, which is the last line of the output.
func backofficeSecret(t *testing.T, name string) string {
	t.Helper()
	code, out, errs := testkit.RunCLI(t, "", "backoffice", "add", "--name", name)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	secret := lines[len(lines)-1]
	if code != app.ExitOK || !strings.HasPrefix(secret, "bo_") || strings.Contains(secret, " ") {
		t.Fatalf("backoffice add: %d %q %q", code, out, errs)
	}
	return secret
}

// decideHTTP posts a decision to the decision API at base.
func decideHTTP(t *testing.T, base, auth string, id int64, body string) testkit.Reply {
	t.Helper()
	h := map[string]string{"Content-Type": "application/json"}
	if auth != "" {
		h["Authorization"] = "Bearer " + auth
	}
	return testkit.Call(t, "POST", base+"/admin/v1/reports/"+strconv.FormatInt(id, 10)+"/decision", h, []byte(body))
}

// TestS11DecisionAPIOnTheInternalListenerOnly: the decision API answers
// on http.metrics_addr's listener, to a back-office client's secret only
// (a valid partner token is 401 there); http.addr has no such route
// (404); with http.metrics_addr empty it is nowhere.
func TestS11DecisionAPIOnTheInternalListenerOnly(t *testing.T) {
	in := startS11(t, false)
	in.AddUser(t, testkit.Partner, testkit.Nit, testkit.Password)
	tok := in.Token(t, testkit.Partner, testkit.Password)
	id := v1Report(t, in, tok, "CR-S11-1")
	secret := backofficeSecret(t, "cartera")
	internal := "http://" + in.MetricsAddr
	if r := decideHTTP(t, internal, tok, id, `{"decision":"accepted"}`); r.Status != 401 || r.Body["code"] != "invalid_token" ||
		!strings.HasPrefix(r.Header.Get("WWW-Authenticate"), `Bearer realm="disbursementd-admin"`) {
		t.Fatalf("a partner token on the decision API: %d %v %s", r.Status, r.Header, r.Raw)
	}
	if r := testkit.Call(t, "POST", in.URL+"/admin/v1/reports/"+strconv.FormatInt(id, 10)+"/decision",
		map[string]string{"Authorization": "Bearer " + secret, "Content-Type": "application/json"}, []byte(`{"decision":"accepted"}`)); r.Status != 404 {
		t.Fatalf("the decision API on http.addr: %d %s", r.Status, r.Raw)
	}
	r := decideHTTP(t, internal, secret, id, `{"decision":"accepted"}`)
	if r.Status != 200 || r.Body["status"] != "accepted" || r.Body["decided_at"] == nil {
		t.Fatalf("decision: %d %s", r.Status, r.Raw)
	}
	if r := decideHTTP(t, internal, secret, id, `{"decision":"rejected","reason_code":"otro","reason":"x"}`); r.Status != 409 || r.Body["code"] != "decision_conflict" {
		t.Fatalf("another decision: %d %s", r.Status, r.Raw)
	}
	if r := decideHTTP(t, internal, secret, id, `{"decision":"rejected","reason_code":"caro","reason":"x"}`); r.Status != 422 || !strings.Contains(string(r.Raw), `"field":"reason_code"`) {
		t.Fatalf("an unknown reason code: %d %s", r.Status, r.Raw)
	}
	if code, _, errs := testkit.RunCLI(t, "", "backoffice", "remove", "--name", "cartera"); code != app.ExitOK {
		t.Fatalf("backoffice remove: %d %s", code, errs)
	}
	if r := decideHTTP(t, internal, secret, id, `{"decision":"accepted"}`); r.Status != 401 {
		t.Fatalf("a removed client's secret: %d %s", r.Status, r.Raw)
	}
	if strings.Contains(in.Logs.String(), secret) {
		t.Error("the back-office secret was logged")
	}

	off := testkit.MustStart(t)
	if r := testkit.Call(t, "POST", off.URL+"/admin/v1/reports/1/decision", map[string]string{"Authorization": "Bearer " + secret}, nil); r.Status != 404 {
		t.Fatalf("without http.metrics_addr: %d %s", r.Status, r.Raw)
	}
}

// receiver is a partner's webhook receiver on loopback: it keeps every
// delivery's headers and body.
type receiver struct {
	mu  sync.Mutex
	got []delivery
	srv *httptest.Server
}

type delivery struct {
	header http.Header
	body   []byte
}

func newReceiver(t *testing.T) *receiver {
	rc := &receiver{}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.got = append(rc.got, delivery{r.Header.Clone(), body})
		rc.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

// wait returns the deliveries once there are n, or fails after a minute
// (a wait for a busy machine, not a speed).
func (rc *receiver) wait(t *testing.T, n int) []delivery {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		rc.mu.Lock()
		got := append([]delivery(nil), rc.got...)
		rc.mu.Unlock()
		if len(got) >= n {
			return got
		}
	}
	t.Fatalf("fewer than %d deliveries in a minute", n)
	return nil
}

// signedBy checks a delivery's Standard Webhooks signature under secret,
// computed here from the specification (not with the service's code).
func signedBy(d delivery, secret string) bool {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(d.header.Get("webhook-id") + "." + d.header.Get("webhook-timestamp") + "." + string(d.body)))
	want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	for _, sig := range strings.Fields(d.header.Get("webhook-signature")) {
		if hmac.Equal([]byte(sig), []byte(want)) {
			return true
		}
	}
	return false
}

// TestS11DecisionsReachThePartner: a decision made by the back office (the
// CLI, a CSV file) shows in the partner's receipts and ?status= list,
// makes its event in GET /v1/events with the receipt at that moment, and
// is delivered to the partner's endpoint signed under its secret, with
// the same data; a redelivery sends it again with the same webhook-id.
// reports show tells who decided and when.
func TestS11DecisionsReachThePartner(t *testing.T) { decisionsReachThePartner(t, false) }

// TestS11DecisionsReachThePartnerMySQL is TestS11DecisionsReachThePartner
// on MariaDB.
func TestS11DecisionsReachThePartnerMySQL(t *testing.T) { decisionsReachThePartner(t, true) }

func decisionsReachThePartner(t *testing.T, mysql bool) {
	in := startS11(t, mysql)
	in.AddUser(t, testkit.Partner, testkit.Nit, testkit.Password)
	tok := in.Token(t, testkit.Partner, testkit.Password)
	auth := map[string]string{"Authorization": "Bearer " + tok, "Content-Type": "application/json"}
	rc := newReceiver(t)
	ep := testkit.Call(t, "POST", in.URL+"/v1/webhook_endpoints", auth, testkit.MustJSON(map[string]any{"url": rc.srv.URL + "/hook", "event_types": []string{"report.rejected"}}))
	secret, _ := ep.Body["secret"].(string)
	if ep.Status != 201 || secret == "" {
		t.Fatalf("endpoint: %d %s", ep.Status, ep.Raw)
	}
	first, second, third := v1Report(t, in, tok, "CR-S11-1"), v1Report(t, in, tok, "CR-S11-2"), v1Report(t, in, tok, "CR-S11-3")
	if code, out, errs := testkit.RunCLI(t, "", "reports", "reject", strconv.FormatInt(first, 10), "--reason-code", "documento_ilegible", "--reason", "El pagaré no se lee"); code != app.ExitOK ||
		!strings.Contains(out, "rejected by cli:") {
		t.Fatalf("reports reject: %d %q %q", code, out, errs)
	}
	csv := filepath.Join(t.TempDir(), "decisions.csv")
	if err := os.WriteFile(csv, []byte("\xEF\xBB\xBFid,decision,reason_code,reason\r\n"+strconv.FormatInt(second, 10)+",accepted,,\r\n"+
		strconv.FormatInt(first, 10)+",accepted,,\r\n999,accepted,,\r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, _ := testkit.RunCLI(t, "", "reports", "decide", "--file", csv)
	if code != app.ExitExists || !strings.Contains(out, "line 3: report "+strconv.FormatInt(first, 10)+": in conflict") ||
		!strings.Contains(out, "line 4: report 999: not found") || !strings.Contains(out, "applied 1, already so 0, in conflict 1, not found 1, invalid 0") {
		t.Fatalf("reports decide: %d %q", code, out)
	}
	got := testkit.Call(t, "GET", in.URL+"/v1/reports/"+strconv.FormatInt(first, 10), auth, nil)
	if got.Body["status"] != "rejected" || got.Body["reason_code"] != "documento_ilegible" || got.Body["reason"] != "El pagaré no se lee" {
		t.Fatalf("GET of the rejected report: %s", got.Raw)
	}
	for status, want := range map[string]int64{"rejected": first, "accepted": second, "received": third} {
		page := testkit.Call(t, "GET", in.URL+"/v1/reports?status="+status, auth, nil)
		data, _ := page.Body["data"].([]any)
		if len(data) != 1 || int64(data[0].(map[string]any)["id"].(float64)) != want {
			t.Errorf("?status=%s: %s", status, page.Raw)
		}
	}
	events := testkit.Call(t, "GET", in.URL+"/v1/events?type=report.rejected", auth, nil)
	var page struct {
		Data []struct {
			ID   string          `json:"id"`
			Data json.RawMessage `json:"data"`
		} `json:"data"`
	}
	if err := json.Unmarshal(events.Raw, &page); err != nil || len(page.Data) != 1 {
		t.Fatalf("GET /v1/events?type=report.rejected: %s", events.Raw)
	}
	d := rc.wait(t, 1)[0]
	var body struct {
		Type string          `json:"type"`
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(d.body, &body); err != nil || body.Type != "report.rejected" || string(body.Data) != string(page.Data[0].Data) ||
		d.header.Get("webhook-id") != page.Data[0].ID || !signedBy(d, secret) {
		t.Fatalf("delivery %v %s; listed %s %s", d.header, d.body, page.Data[0].ID, page.Data[0].Data)
	}
	if r := testkit.Call(t, "POST", in.URL+"/v1/events/"+page.Data[0].ID+"/redeliver", auth, nil); r.Status != 202 || r.Body["deliveries"] != float64(1) {
		t.Fatalf("redeliver: %d %s", r.Status, r.Raw)
	}
	again := rc.wait(t, 2)[1]
	if again.header.Get("webhook-id") != d.header.Get("webhook-id") || string(again.body) != string(d.body) || !signedBy(again, secret) {
		t.Fatalf("redelivery: %v %s", again.header, again.body)
	}
	if code, out, _ := testkit.RunCLI(t, "", "reports", "show", strconv.FormatInt(first, 10)); code != app.ExitOK ||
		!strings.Contains(out, "rejected by cli:") || !strings.Contains(out, `documento_ilegible: "El pagaré no se lee"`) {
		t.Errorf("reports show: %d %q", code, out)
	}
	attempts := testkit.Call(t, "GET", in.URL+"/v1/webhook_endpoints/"+ep.Body["id"].(string)+"/attempts", auth, nil)
	if data, _ := attempts.Body["data"].([]any); attempts.Status != 200 || len(data) != 2 || data[0].(map[string]any)["status_code"] != float64(204) {
		t.Errorf("attempts: %d %s", attempts.Status, attempts.Raw)
	}
	if code, out, _ := testkit.RunCLI(t, "", "webhooks", "list"); code != app.ExitOK || !strings.Contains(out, ep.Body["id"].(string)) || !strings.Contains(out, "enabled") {
		t.Errorf("webhooks list: %d %q", code, out)
	}
	if code, out, errs := testkit.RunCLI(t, "", "events", "purge", "--dry-run"); code != app.ExitOK || !strings.Contains(out, "would delete 0 events created before") {
		t.Errorf("events purge --dry-run (every event is younger than events.retention): %d %q %q", code, out, errs)
	}
	if strings.Contains(in.Logs.String(), strings.TrimPrefix(secret, "whsec_")) {
		t.Error("the endpoint's secret was logged")
	}
}
