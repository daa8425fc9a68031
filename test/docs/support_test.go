package docs

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/testkit"
)

// TestDocsSupportRecipe runs the operator guide's support block as
// support pastes it, against the real binary: a partner's report was
// refused, then sent again corrected with the same Idempotency-Key (the
// block's KEY) and stored. Only REQ, the refused answer's X-Request-Id,
// comes from the run; journalctl prints the service's log, after two
// lines that are not JSON, as under systemd; disbursementd
// is the built binary, run where the service runs. The block must print
// the refusal's line (code and fields), the stored report (reports show)
// and its row (reports list), and hold neither the key nor an
// identification number.
func TestDocsSupportRecipe(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"bash", "jq", "sha256sum"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("CI=true and %s is not installed", tool)
			}
			t.Skipf("%s is not installed", tool)
		}
	}
	block := fencedShell(t, "docs/operator-guide.md", "reports show")
	key := regexp.MustCompile(`(?m)^KEY='([^']+)'$`).FindStringSubmatch(block)
	if key == nil || !regexp.MustCompile(`(?m)^REQ=\S+$`).MatchString(block) || !strings.Contains(block, "--credit CR-7731") {
		t.Fatalf("the support block no longer sets REQ=, KEY='…' and lists --credit CR-7731:\n%s", block)
	}
	dir := t.TempDir()
	env := testkit.BaseEnv()
	if out, err := testkit.CLI(t, dir, env, testkit.Password+"\n", "users", "add", "--user", testkit.Partner, "--nit", testkit.Nit); err != nil {
		t.Fatalf("users add: %v\n%s", err, out)
	}
	p := testkit.StartProcess(t, dir, env)
	in := &testkit.Instance{URL: p.URL}
	tok := in.Token(t, testkit.Partner, testkit.Password)
	today := time.Now().UTC()
	bad := fixture.FullBody(today, "CR-7731", fixture.PDF(4096))
	delete(bad, "Monto Aprobado")
	bad["Fecha de Desembolso"] = "31/02/2026"
	refused := in.Report(t, tok, testkit.MustJSON(bad), "Idempotency-Key", key[1])
	stored := in.Report(t, tok, testkit.MustJSON(fixture.FullBody(today, "CR-7731", fixture.PDF(4096))), "Idempotency-Key", key[1])
	if refused.Status != 400 || stored.Status != 200 {
		t.Fatalf("the partner's reports: %d %s / %d %s", refused.Status, refused.Raw, stored.Status, stored.Raw)
	}
	req := refused.Header.Get("X-Request-Id")
	id := strconv.FormatInt(int64(stored.Body["id"].(float64)), 10)
	// The stored report's line follows its answer.
	for deadline := time.Now().Add(time.Minute); !strings.Contains(p.Logs.String(), stored.Header.Get("X-Request-Id")); {
		if time.Now().After(deadline) {
			t.Fatal("the stored report's line never came")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// journalctl -u prints systemd's lines and the unit's migrate among
	// the service's JSON: the block must read past them.
	journal := "schema up to date\nStarted disbursementd.service - disbursementd: partner disbursement reports.\n" + p.Logs.String()
	logFile := filepath.Join(t.TempDir(), "journal.jsonl")
	if err := os.WriteFile(logFile, []byte(journal), 0o600); err != nil {
		t.Fatal(err)
	}
	script := "set -euo pipefail\njournalctl() { cat \"$SUPPORT_LOG\"; }\n" +
		regexp.MustCompile(`(?m)^REQ=\S+$`).ReplaceAllString(block, "REQ="+req)
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(env, "SUPPORT_LOG="+logFile, "PATH="+filepath.Dir(testkit.BinaryPath(t))+string(os.PathListSeparator)+os.Getenv("PATH"))
	outb, err := cmd.CombinedOutput()
	out := string(outb)
	if err != nil {
		t.Fatalf("the block failed: %v\n%s", err, out)
	}
	for _, want := range []string{
		`"request_id":"` + req + `","route":"/api/partner_api.php","status":400,"code":"invalid_report"`,
		`{"field":"Monto Aprobado","code":"required"}`, `{"field":"Fecha de Desembolso","code":"invalid_format"}`,
		`"status":200,"code":null,"problems":null,"problems_more":null,"report_id":` + id + `,`,
		"\nid ", ": present (", "10******50",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the block's output lacks %q:\n%s", want, out)
		}
	}
	if !regexp.MustCompile(`(?m)^` + id + ` +\S+ +acme +CR-7731 +partner_CR-7731_`).MatchString(out) {
		t.Errorf("reports list shows no row of report %s:\n%s", id, out)
	}
	for _, secret := range []string{key[1], "1020304050"} {
		if strings.Contains(out, secret) {
			t.Errorf("the block's output holds %q:\n%s", secret, out)
		}
	}
}
