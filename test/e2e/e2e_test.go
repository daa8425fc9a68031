package e2e

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/storetest"
	"github.com/lender/disbursementd/test/testkit"
)

// TestEndToEndSQLite runs the endpoint suite on the embedded default.
func TestEndToEndSQLite(t *testing.T) {
	t.Parallel()
	endToEnd(t)
}

// TestEndToEndMySQL runs the same suite once against MariaDB.
func TestEndToEndMySQL(t *testing.T) {
	t.Parallel()
	storetest.ServerDSN(t)
	endToEnd(t, testkit.WithMySQL(t))
}

func endToEnd(t *testing.T, mutate ...func(*config.Config)) {
	in := testkit.MustStart(t, mutate...)
	in.AddUser(t, testkit.Partner, testkit.Nit, testkit.Password)
	tok := in.Token(t, testkit.Partner, testkit.Password)

	t.Run("full report with a PDF", func(t *testing.T) { fullReport(t, in, tok) })
	t.Run("minimal report", func(t *testing.T) {
		r := in.Report(t, tok, testkit.MustJSON(fixture.Minimal(time.Now(), "CR-MIN-1")))
		if r.Status != 200 || r.Body["status"] != "200" || r.Body["file"] != nil {
			t.Fatalf("minimal report: %d %s", r.Status, r.Raw)
		}
		row := storetest.ReportRow(t, in.Config.Store.Driver, in.Config.Store.DSN, int64(r.Body["id"].(float64)))
		if row["numero_credito"] != "CR-MIN-1" || row["monto_aprobado"] != "14334900.00" || row["nombre_convenio"] != "" || row["file_name"] != "" {
			t.Fatalf("row = %v", row)
		}
	})
	t.Run("twenty concurrent identical reports store one", func(t *testing.T) {
		concurrentDuplicates(t, in, tok, "CR-RACE-1", fixture.PDF(64<<10))
	})
	t.Run("twenty concurrent identical reports without a file store one", func(t *testing.T) {
		concurrentDuplicates(t, in, tok, "CR-RACE-2", nil)
	})
	t.Run("idempotency key", func(t *testing.T) {
		body := testkit.MustJSON(fixture.Minimal(time.Now(), "CR-IDEM-1"))
		first := in.Report(t, tok, body, "Idempotency-Key", "order-1")
		again := in.Report(t, tok, body, "Idempotency-Key", "order-1")
		if first.Status != 200 || !bytes.Equal(first.Raw, again.Raw) || again.Header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("replay: %d %s / %d %s", first.Status, first.Raw, again.Status, again.Raw)
		}
		other := in.Report(t, tok, testkit.MustJSON(fixture.Minimal(time.Now(), "CR-IDEM-2")), "Idempotency-Key", "order-1")
		if other.Status != 400 || other.Body["code"] != "idempotency_key_reused" {
			t.Fatalf("reused key: %d %s", other.Status, other.Raw)
		}
	})
}

func fullReport(t *testing.T, in *testkit.Instance, tok string) {
	pdf := fixture.PDF(200 << 10)
	today := time.Now().UTC()
	r := in.Report(t, tok, testkit.MustJSON(fixture.FullBody(today, "CR-2026-0001", pdf)))
	if r.Status != 200 || r.Body["status"] != "200" || r.Body["message"] != "Datos ingresados exitosamente!" {
		t.Fatalf("full report: %d %s", r.Status, r.Raw)
	}
	name, _ := r.Body["file"].(string)
	if !regexp.MustCompile(`^partner_CR-2026-0001_\d{8}T\d{9}Z\.pdf$`).MatchString(name) {
		t.Fatalf("file name %q does not match partner_{numero_credito}_{timestamp}.pdf", name)
	}
	path := filepath.Join(in.Config.Uploads.Dir, name)
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, pdf) {
		t.Fatalf("saved file differs from the decoded input (%d vs %d bytes): %v", len(got), len(pdf), err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o640 {
		t.Errorf("file mode %v, want 0640", st.Mode().Perm())
	}
	row := storetest.ReportRow(t, in.Config.Store.Driver, in.Config.Store.DSN, int64(r.Body["id"].(float64)))
	for _, v := range fixture.Full(today) {
		f, _ := lookup(v.Partner)
		want := v.Stored
		if f == "numero_credito" {
			want = "CR-2026-0001"
		}
		if row[f] != want {
			t.Errorf("column %s = %q, want %q", f, row[f], want)
		}
	}
	sum := sha256.Sum256(pdf)
	for col, want := range map[string]string{"partner_user": testkit.Partner, "partner_nit": testkit.Nit, "file_name": name,
		"file_size": fmt.Sprint(len(pdf)), "file_sha256": hex.EncodeToString(sum[:]), "request_id": r.Header.Get("X-Request-Id")} {
		if row[col] != want {
			t.Errorf("column %s = %q, want %q", col, row[col], want)
		}
	}
}

func concurrentDuplicates(t *testing.T, in *testkit.Instance, tok, credit string, file []byte) {
	body := testkit.MustJSON(fixture.FullBody(time.Now(), credit, file))
	before := storetest.CountReports(t, in.Config.Store.Driver, in.Config.Store.DSN)
	var wg sync.WaitGroup
	replies := make([]testkit.Reply, 20)
	for i := range replies {
		wg.Add(1)
		go func() {
			defer wg.Done()
			replies[i] = in.Report(t, tok, body)
		}()
	}
	wg.Wait()
	for i, r := range replies {
		if r.Status != 200 || !bytes.Equal(r.Raw, replies[0].Raw) {
			t.Errorf("reply %d: %d %s; want the same success as reply 0 (%s)", i, r.Status, r.Raw, replies[0].Raw)
		}
	}
	after := storetest.CountReports(t, in.Config.Store.Driver, in.Config.Store.DSN)
	files, _ := filepath.Glob(filepath.Join(in.Config.Uploads.Dir, "partner_"+credit+"_*"))
	wantFiles := 1
	if file == nil {
		wantFiles = 0
	}
	if after-before != 1 || len(files) != wantFiles {
		t.Fatalf("%d rows and %d files for 20 identical reports, want 1 and %d", after-before, len(files), wantFiles)
	}
}

func lookup(partnerName string) (string, bool) {
	for _, f := range domain.DefaultCatalogue().Fields {
		if f.Partner == partnerName {
			return f.Internal, true
		}
	}
	return "", false
}

// TestTokenExchange covers GET /api/partner_api.php.
func TestTokenExchange(t *testing.T) {
	t.Parallel()
	in := testkit.MustStart(t)
	in.AddUser(t, testkit.Partner, testkit.Nit, testkit.Password)
	in.AddUser(t, "dormant", testkit.Nit, testkit.Password)
	if err := in.Store.SetActive(t.Context(), "dormant", false); err != nil {
		t.Fatal(err)
	}
	url := in.URL + "/api/partner_api.php"
	ok := testkit.Call(t, "GET", url, testkit.JSONCT, testkit.MustJSON(map[string]string{"user": testkit.Partner, "password": testkit.Password}))
	if ok.Status != 200 || ok.Body["status"] != float64(200) || ok.Body["token_type"] != "bearer" ||
		ok.Body["expires_in"].(float64) < 86000 || strings.Count(ok.Body["access_token"].(string), ".") != 2 ||
		ok.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("good credentials: %d %v %v", ok.Status, ok.Header, ok.Body)
	}
	for name, body := range map[string]string{
		"wrong password":  `{"user":"acme","password":"nope"}`,
		"unknown user":    `{"user":"nobody","password":"correct horse battery staple"}`,
		"inactive user":   `{"user":"dormant","password":"correct horse battery staple"}`,
		"malformed JSON":  `{"user":`,
		"missing field":   `{"user":"acme"}`,
		"empty password":  `{"user":"acme","password":""}`,
		"no body":         ``,
		"array body":      `["acme","x"]`,
		"numbers as user": `{"user":1,"password":2}`,
	} {
		t.Run(name, func(t *testing.T) {
			r := testkit.Call(t, "GET", url, testkit.JSONCT, []byte(body))
			if r.Status != 400 || r.Body["status"] != float64(400) || r.Body["error"] != "invalid_client" || r.Body["access_token"] != nil {
				t.Fatalf("%d %s", r.Status, r.Raw)
			}
			if r.Header.Get("Cache-Control") != "no-store" || r.Header.Get("Access-Control-Allow-Origin") != "*" {
				t.Errorf("headers %v", r.Header)
			}
		})
	}
}
