package process

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/storetest"
	"github.com/lender/disbursementd/test/testkit"
)

// TestSupportFindsReportsSQLite, …MySQL and …S3: what support does
// when a partner asks "why was my report refused?", through the real
// binary: the service's JSON log lines (as a log pipeline parses them)
// tell a refused report's code and fields and carry the
// Idempotency-Key's hash; reports list and reports show find the stored
// reports of any partner, masked, with their file's state, with the exit
// codes of the operator guide; /v1 still shows a partner only its own.
func TestSupportFindsReportsSQLite(t *testing.T) {
	t.Parallel()
	supportFlow(t, supportSetup{env: testkit.BaseEnv()})
}

func TestSupportFindsReportsMySQL(t *testing.T) {
	t.Parallel()
	storetest.ServerDSN(t)
	dsn := storetest.MustCreateDatabase(t)
	supportFlow(t, supportSetup{env: testkit.BaseEnv("DISB_STORE_DRIVER=mysql", "DISB_STORE_DSN="+dsn)})
}

func TestSupportFindsReportsS3(t *testing.T) {
	t.Parallel()
	storetest.ServerDSN(t)
	dsn := storetest.MustCreateDatabase(t)
	s3cfg := storetest.S3Config(t)
	cl := storetest.S3Client(s3cfg)
	t.Cleanup(func() { storetest.DeleteS3Prefix(t, cl, s3cfg) })
	supportFlow(t, supportSetup{
		env: testkit.BaseEnv("DISB_STORE_DRIVER=mysql", "DISB_STORE_DSN="+dsn,
			"DISB_UPLOADS_BACKEND=s3", "DISB_UPLOADS_S3_ENDPOINT="+s3cfg.Endpoint, "DISB_UPLOADS_S3_BUCKET="+s3cfg.Bucket,
			"DISB_UPLOADS_S3_PREFIX="+s3cfg.Prefix, "DISB_UPLOADS_S3_REGION="+s3cfg.Region, "DISB_UPLOADS_S3_PATH_STYLE=true",
			"DISB_UPLOADS_S3_ACCESS_KEY_ID="+s3cfg.AccessKeyID, "DISB_UPLOADS_S3_SECRET_ACCESS_KEY="+s3cfg.SecretAccessKey),
		removeFile: func(t *testing.T, _ string, name string) {
			if _, err := cl.DeleteObject(context.Background(), &s3.DeleteObjectInput{Bucket: &s3cfg.Bucket, Key: aws.String(s3cfg.Prefix + name)}); err != nil {
				t.Fatal(err)
			}
		},
	})
}

// supportSetup is where a flow's service keeps its rows and files.
type supportSetup struct {
	env []string
	// removeFile deletes a stored file from the upload store (default:
	// from dir's data/uploads).
	removeFile func(t *testing.T, dir, name string)
}

// supportKey is the Idempotency-Key of the flow's refused-then-stored
// report: partners put credit and identification numbers in keys, so
// the log must not hold it (the leak check of watch looks for
// 1020304050).
const supportKey = "acme-CR-SUP-1-1020304050"

func supportFlow(t *testing.T, s supportSetup) {
	dir := t.TempDir()
	for _, u := range [][3]string{{testkit.Partner, testkit.Nit, testkit.Password}, {testkit.OtherPartner, "900765432", testkit.OtherPassword}} {
		if out, err := testkit.CLI(t, dir, s.env, u[2]+"\n", "users", "add", "--user", u[0], "--nit", u[1]); err != nil {
			t.Fatalf("users add %s: %v\n%s", u[0], err, out)
		}
	}
	p := testkit.StartProcess(t, dir, s.env)
	in := &testkit.Instance{URL: p.URL}
	acme, globex := in.Token(t, testkit.Partner, testkit.Password), in.Token(t, testkit.OtherPartner, testkit.OtherPassword)
	today := time.Now().UTC()

	// acme's report is refused (a bad value, a missing field, a key that
	// is no field), then sent again corrected with the same key.
	bad := fixture.FullBody(today, "CR-SUP-1", fixture.PDF(4096))
	delete(bad, "Monto Aprobado")
	bad["Fecha de Desembolso"] = "31/02/2026"
	bad["1020304050"] = "x"
	refused := in.Report(t, acme, testkit.MustJSON(bad), "Idempotency-Key", supportKey)
	stored := in.Report(t, acme, testkit.MustJSON(fixture.FullBody(today, "CR-SUP-1", fixture.PDF(4096))), "Idempotency-Key", supportKey)
	replayed := in.Report(t, acme, testkit.MustJSON(fixture.FullBody(today, "CR-SUP-1", fixture.PDF(4096))), "Idempotency-Key", supportKey)
	if refused.Status != 400 || stored.Status != 200 || replayed.Status != 200 || replayed.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("acme's reports: %d %s / %d %s / %d", refused.Status, refused.Raw, stored.Status, stored.Raw, replayed.Status)
	}
	acmeID := int64(stored.Body["id"].(float64))
	fileName := stored.Body["file"].(string)
	// globex's report, on /v1, without a file or a key, in a trace.
	const trace = "0af7651916cd43dd8448eb211c80319c"
	g := testkit.Call(t, "POST", p.URL+"/v1/reports", testkit.V1Header(globex, "traceparent", "00-"+trace+"-b7ad6b7169203331-01"),
		testkit.MustJSON(fixture.FullV1(today, "CR-SUP-2", nil)))
	if g.Status != 201 {
		t.Fatalf("globex's report: %d %s", g.Status, g.Raw)
	}
	globexID := int64(g.Body["id"].(float64))

	// The log, as a pipeline reads it: every line JSON. A request's line
	// is written once its answer is sent, so it may follow the answer.
	line := func(requestID string) map[string]any {
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			for _, l := range jsonLines(t, p.Logs.String()) {
				if l["msg"] == "request" && l["request_id"] == requestID {
					return l
				}
			}
		}
		t.Fatalf("no request line %s", requestID)
		return nil
	}
	keyHash := domain.HashPrefix(supportKey)
	r := line(refused.Header.Get("X-Request-Id"))
	problems := map[string]string{}
	list, _ := r["problems"].([]any)
	for _, p := range list {
		m, _ := p.(map[string]any)
		problems[fmt.Sprint(m["field"])] = fmt.Sprint(m["code"])
	}
	want := map[string]string{"Monto Aprobado": "required", "Fecha de Desembolso": "invalid_format",
		"sha256:" + domain.HashPrefix("1020304050"): "unknown_field"}
	if r["code"] != "invalid_report" || r["idempotency_key_sha256"] != keyHash || r["status"] != float64(400) ||
		fmt.Sprint(problems) != fmt.Sprint(want) {
		t.Errorf("the refused report's line: %v", r)
	}
	for _, resp := range []testkit.Reply{stored, replayed} {
		if l := line(resp.Header.Get("X-Request-Id")); l["idempotency_key_sha256"] != keyHash || l["report_id"] != float64(acmeID) {
			t.Errorf("a stored or replayed report's line: %v", l)
		}
	}
	if l := line(g.Header.Get("X-Request-Id")); l["trace_id"] != trace || l["report_id"] != float64(globexID) {
		t.Errorf("globex's line: %v", l)
	}
	for _, l := range jsonLines(t, p.Logs.String()) {
		if l["route"] == "/healthz" || l["route"] == "/readyz" {
			t.Errorf("a probe logged at the default level: %v", l)
		}
	}

	supportCLI(t, s, dir, fileName, acmeID, globexID)

	// /v1 still shows a partner its own reports only.
	for _, c := range []struct {
		tok  string
		id   int64
		want int
	}{{globex, acmeID, 404}, {acme, globexID, 404}, {acme, acmeID, 200}, {globex, globexID, 200}} {
		if r := testkit.Call(t, "GET", fmt.Sprintf("%s/v1/reports/%d", p.URL, c.id), map[string]string{"Authorization": "Bearer " + c.tok}, nil); r.Status != c.want {
			t.Errorf("GET /v1/reports/%d: %d, want %d", c.id, r.Status, c.want)
		}
	}
}

// supportCLI runs reports list and show as support would.
func supportCLI(t *testing.T, s supportSetup, dir, fileName string, acmeID, globexID int64) {
	run := func(want int, args ...string) string {
		t.Helper()
		out, err := testkit.CLI(t, dir, s.env, "", args...)
		if code := exitCode(err); code != want {
			t.Fatalf("%v: exit %d, want %d\n%s", args, code, want, out)
		}
		if strings.Contains(out, "1020304050") || strings.Contains(out, supportKey) {
			t.Errorf("%v shows an identification number or the key:\n%s", args, out)
		}
		return out
	}
	ids := func(out string) []string {
		var got []string
		for l := range strings.Lines(out) {
			// A row: the id, then the receipt time.
			if f := strings.Fields(l); len(f) == 7 && strings.HasSuffix(f[1], "Z") {
				got = append(got, f[0])
			}
		}
		return got
	}
	a, g := fmt.Sprint(acmeID), fmt.Sprint(globexID)
	today, tomorrow := time.Now().UTC().Format("2006-01-02"), time.Now().UTC().AddDate(0, 0, 1).Format("2006-01-02")
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"reports", "list"}, []string{g, a}},
		{[]string{"reports", "list", "--user", testkit.Partner}, []string{a}},
		{[]string{"reports", "list", "--credit", "CR-SUP-2"}, []string{g}},
		{[]string{"reports", "list", "--user", testkit.Partner, "--key", supportKey}, []string{a}},
		{[]string{"reports", "list", "--from", today, "--to", tomorrow}, []string{g, a}},
		{[]string{"reports", "list", "--from", tomorrow}, nil},
		{[]string{"reports", "list", "--limit", "1"}, []string{g}},
		{[]string{"reports", "list", "--before", g}, []string{a}},
	} {
		out := run(0, tt.args...)
		if got := ids(out); fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("%v: ids %v, want %v\n%s", tt.args, got, tt.want, out)
		}
	}
	if out := run(0, "reports", "list", "--user", testkit.Partner); !strings.Contains(out, domain.HashPrefix(supportKey)) || !strings.Contains(out, fileName) {
		t.Errorf("the list lacks the key's hash or the file:\n%s", out)
	}
	if out := run(0, "reports", "list", "--limit", "1"); !strings.Contains(out, "--before "+g) {
		t.Errorf("a full page does not say how to see the next:\n%s", out)
	}
	out := run(0, "reports", "show", a)
	for _, want := range []string{`(?m)^partner +acme$`, `(?m)^file +` + regexp.QuoteMeta(fileName) + `: present \([0-9]+ bytes`,
		`Identificación del cliente +nit_cc +10\*{6}50`, `(?m)^partner_nit +90\*{7}-8$`,
		`(?m)^idempotency_key +sha256 ` + domain.HashPrefix(supportKey), `Primer Nombre +primer_nombre +Ana`} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("reports show %s lacks %s:\n%s", a, want, out)
		}
	}
	if out := run(0, "reports", "show", g); !regexp.MustCompile(`(?m)^file +none`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^partner +globex$`).MatchString(out) {
		t.Errorf("reports show %s:\n%s", g, out)
	}
	remove := s.removeFile
	if remove == nil {
		remove = func(t *testing.T, dir, name string) {
			if err := os.Remove(filepath.Join(dir, "data", "uploads", name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	remove(t, dir, fileName)
	if out := run(0, "reports", "show", a); !strings.Contains(out, fileName+": MISSING") {
		t.Errorf("a removed file:\n%s", out)
	}
	run(3, "reports", "show", "999999")
	for _, args := range [][]string{{"reports", "show", "abc"}, {"reports", "show"}, {"reports", "list", "--from", "yesterday"},
		{"reports", "list", "--key", supportKey}, {"reports", "list", "--limit", "501"}, {"reports", "bogus"}, {"reports", "list", "x"}} {
		run(2, args...)
	}
	// An upload store that does not answer: show exits 1 (for a bucket,
	// after printing the report with its file's state unknown).
	downUploads := append(append([]string{}, s.env...), "DISB_UPLOADS_DIR="+filepath.Join(dir, "nowhere"))
	if s.removeFile != nil {
		downUploads = append(downUploads, "DISB_UPLOADS_S3_ENDPOINT=http://127.0.0.1:1")
	}
	if out, err := testkit.CLI(t, dir, downUploads, "", "reports", "show", a); exitCode(err) != 1 ||
		s.removeFile != nil && !strings.Contains(out, fileName+": unknown") {
		t.Errorf("reports show with the upload store down: %v\n%s", err, out)
	}
	// A store that does not answer: exit 1.
	broken := append(append([]string{}, s.env...), "DISB_STORE_DRIVER=mysql", "DISB_STORE_DSN=u:p@tcp(127.0.0.1:1)/x")
	if out, err := testkit.CLI(t, dir, broken, "", "reports", "list"); exitCode(err) != 1 || strings.Contains(out, "u:p@") {
		t.Errorf("reports list on a store that does not answer: %v\n%s", err, out)
	}
}

// jsonLines parses every line of a log as JSON, as a log pipeline does; a
// line that is not JSON fails the test.
func jsonLines(t *testing.T, logs string) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(logs))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("a log line is not JSON (%v): %s", err, sc.Text())
		}
		out = append(out, m)
	}
	return out
}

// TestReportsHelp: reports and its subcommands answer --help on standard
// output, and the overview names the command.
func TestReportsHelp(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"reports", "--help"}, {"reports", "list", "--help"}, {"reports", "show", "-h"}, {"help", "reports"}} {
		code, out, errs := testkit.RunCLI(t, "", args...)
		if code != 0 || !strings.Contains(out, "Usage: disbursementd reports") {
			t.Errorf("%v: %d %q %q", args, code, out, errs)
		}
	}
	if code, out, _ := testkit.RunCLI(t, "", "--help"); code != 0 || !strings.Contains(out, "disbursementd reports") {
		t.Errorf("the overview lacks reports:\n%s", out)
	}
	if code, _, _ := testkit.RunCLI(t, "", "reports"); code != 2 {
		t.Errorf("reports without a subcommand: %d, want 2", code)
	}
}
