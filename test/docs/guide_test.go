package docs

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/test/testkit"
)

// guideSecret is the partner's password in the guide's runs: with a
// space, a plus, an ampersand and a percent sign, it reaches the service
// only if every client form-encodes it as the guide says.
const guideSecret = "s3cret + with spaces & 100%"

// TestDocsPartnerGuideV1 runs the partner guide's /v1 examples as a
// partner pastes them, against a real instance. Only the set-up block's
// variables come from the environment (the instance's address, the
// partner, and DAY, today, for the reconciliation); then the curl blocks
// of sections 1 and 2 run in bash as written, and the guide's Go block,
// which must be docs/examples/v1client/main.go, runs with go run twice
// (the second time a replay), and so does its Python block, which must
// be docs/examples/v1python/report.py. 120 reports of the partner are
// stored first, so the reconciliation reads two pages.
func TestDocsPartnerGuideV1(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"bash", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("CI=true and %s is not installed", tool)
			}
			t.Skipf("%s is not installed", tool)
		}
	}
	const guide = "docs/partner-guide.md"
	setup := fencedShell(t, guide, "export BASE_URL=")
	for _, v := range []string{"BASE_URL=", "CLIENT_ID=", "CLIENT_SECRET="} {
		if !strings.Contains(setup, v) {
			t.Fatalf("%s: the set-up block no longer sets %s; the test gives the blocks only BASE_URL, CLIENT_ID, CLIENT_SECRET and DAY", guide, v)
		}
	}
	in := testkit.MustStart(t)
	in.AddUser(t, testkit.Partner, testkit.Nit, guideSecret)
	tok := testkit.TokenCall(t, in, nil, testkit.FormCT, "grant_type=client_credentials&client_id=acme&client_secret="+url.QueryEscape(guideSecret))
	bearer := map[string]string{"Content-Type": "application/json", "Authorization": "Bearer " + fmt.Sprint(tok.Body["access_token"])}
	today := time.Now().UTC().Format(time.DateOnly)
	for i := range 120 {
		body := fmt.Sprintf(`{"Numero de Convenio":"CV-001","Tipo de identificación":"CC","Identificación del cliente":"1020304050",
			"Primer Nombre":"Ana","Primer Apellido":"Pérez","Número de Crédito":"CR-PRE-%03d","Monto Aprobado":"1000.00",
			"Plazo (meses)":12,"Tasa de Interés Nominal Mes Vencido (%%)":"1.85","Valor Cuota Total":"90.00",
			"Fecha de Desembolso":%q,"Valor Desembolsado":"1000.00"}`, i, today)
		if r := testkit.Call(t, http.MethodPost, in.URL+"/v1/reports", bearer, []byte(body)); r.Status != http.StatusCreated {
			t.Fatalf("storing report %d first: %d %s", i, r.Status, r.Raw)
		}
	}
	env := append(os.Environ(), "BASE_URL="+in.URL, "CLIENT_ID="+testkit.Partner, "CLIENT_SECRET="+guideSecret, "DAY="+today)

	t.Run("curl", func(t *testing.T) {
		script := "set -euo pipefail\n" + fencedShell(t, guide, "/v1/token") + fencedShell(t, guide, "CURSOR=")
		cmd := exec.Command("bash", "-c", script)
		cmd.Dir, cmd.Env = t.TempDir(), env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("the guide's curl blocks: %v\n%s", err, out)
		}
		got := testkit.Call(t, http.MethodGet, in.URL+"/v1/reports?numero_credito=CR-2026-0011", bearer, nil)
		data, _ := got.Body["data"].([]any)
		if len(data) != 1 {
			t.Fatalf("the guide's report is not stored once: %s\n%s", got.Raw, out)
		}
		id := int(data[0].(map[string]any)["id"].(float64))
		for _, want := range []string{"\n/v1/reports/" + strconv.Itoa(id) + "\n", `"Monto Aprobado":"14334900.55"`,
			`"Tasa de Interés Nominal Mes Vencido (%)":"1.8500"`, `"next_cursor":null`} {
			if !strings.Contains("\n"+string(out), want) {
				t.Errorf("the guide's curl blocks do not print %q:\n%s", want, out)
			}
		}
		// The reconciliation lists every report of the day once: the 120
		// stored first and the guide's, over two pages.
		seen := map[string]int{}
		for _, m := range regexp.MustCompile(`(?m)^(\d+)\tCR-`).FindAllStringSubmatch(string(out), -1) {
			seen[m[1]]++
		}
		for i := 1; i <= id; i++ {
			if seen[strconv.Itoa(i)] != 1 {
				t.Errorf("the reconciliation lists report %d %d times", i, seen[strconv.Itoa(i)])
			}
		}
		if len(seen) != id || id != 121 {
			t.Errorf("the reconciliation lists %d reports, the last id is %d; want 121", len(seen), id)
		}
	})

	t.Run("go", func(t *testing.T) {
		file := repoFile(t, "docs/examples/v1client/main.go")
		if !strings.Contains(repoFile(t, guide), "```go\n"+file+"```\n") {
			t.Fatalf("%s: the ```go block is not docs/examples/v1client/main.go as it is", guide)
		}
		pdf := filepath.Join(t.TempDir(), "pagare.pdf")
		if err := os.WriteFile(pdf, []byte("%PDF-1.4\n1 0 obj\n<< >>\nendobj\n%%EOF\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"201 Created, /v1/reports/", `200 OK, /v1/reports/`} {
			cmd := exec.Command("go", "run", "./docs/examples/v1client", pdf)
			cmd.Dir, cmd.Env = root, env
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("go run ./docs/examples/v1client: %v\n%s", err, out)
			}
			for _, w := range []string{want, "Monto Aprobado 14334900.55"} {
				if !strings.Contains(string(out), w) {
					t.Errorf("the Go example does not print %q:\n%s", w, out)
				}
			}
			if strings.HasPrefix(want, "200") && !strings.Contains(string(out), `Idempotent-Replayed "true"`) {
				t.Errorf("the Go example's second run is not a replay:\n%s", out)
			}
		}
	})

	t.Run("python", func(t *testing.T) {
		// Debian's python3 with python3-requests-oauthlib, which sends the
		// secret in HTTP Basic without form-encoding it (contract §10).
		python := guidePython(t)
		file := repoFile(t, "docs/examples/v1python/report.py")
		if !strings.Contains(repoFile(t, guide), "```python\n"+file+"```\n") {
			t.Fatalf("%s: the ```python block is not docs/examples/v1python/report.py as it is", guide)
		}
		var location string
		for run, want := range []string{"201 /v1/reports/", "200 /v1/reports/"} {
			cmd := exec.Command(python, "docs/examples/v1python/report.py")
			// The test instance listens on http; oauthlib takes only https
			// unless told, as the guide says for a local instance.
			cmd.Dir, cmd.Env = root, append(env, "OAUTHLIB_INSECURE_TRANSPORT=1")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("python3 report.py: %v\n%s", err, out)
			}
			m := regexp.MustCompile(`(?m)^(\d{3}) (/v1/reports/\d+) Idempotent-Replayed: (\w+)$`).FindStringSubmatch(string(out))
			if m == nil || !strings.HasPrefix(m[1]+" "+m[2], want) {
				t.Fatalf("run %d: want %q…:\n%s", run+1, want, out)
			}
			if run == 1 && (m[2] != location || m[3] != "true") {
				t.Errorf("the second run is not a replay of %s with its Location:\n%s", location, out)
			}
			location = m[2]
			id := strings.TrimPrefix(location, "/v1/reports/")
			for _, w := range []string{"Monto Aprobado 14334900.55", "receipts [" + id + "]"} {
				if !strings.Contains(string(out), w) {
					t.Errorf("run %d: the Python example does not print %q:\n%s", run+1, w, out)
				}
			}
		}
	})
}

// guidePython is Debian's python3 when it has requests-oauthlib (a
// pyenv or venv python3 first on PATH may not); the test fails in CI
// without one, and is skipped elsewhere.
func guidePython(t *testing.T) string {
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		if exec.Command(p, "-c", "import requests_oauthlib").Run() == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("CI=true and no python3 with requests_oauthlib (apt-get install python3-requests-oauthlib)")
	}
	t.Skip("no python3 with requests_oauthlib")
	return ""
}
