package test

import (
	"net"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/test/fixture"
)

// urlPassword is the password written into URL settings by the tests
// below; TestMain fails the run if any log line holds it.
const urlPassword = "url-pass-w0rd"

// closedAddr is a loopback address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

// TestNoCredentialsInLogsOrErrors: a user:password@ in uploads.s3.endpoint
// and login.url is masked in the start-up configuration line, in every S3
// error (a report whose PUT fails, the readiness check) and in an
// upstream login's error, in logs and answers alike (contract §7; the
// third round's finding 8).
func TestNoCredentialsInLogsOrErrors(t *testing.T) {
	in := mustStart(t, func(c *config.Config) {
		c.Uploads.Backend, c.Uploads.S3.Bucket, c.Uploads.S3.PathStyle = "s3", "reports", true
		c.Uploads.S3.Endpoint = "http://minio:" + urlPassword + "@" + closedAddr(t)
		c.Uploads.S3.AccessKeyID, c.Uploads.S3.SecretAccessKey, c.Uploads.S3.Region = "AKIDTEST", "not-the-url-password", "us-east-1"
		c.Login.URL = "http://partner:" + urlPassword + "@" + closedAddr(t) + "/auth/login"
	})
	in.addUser(t, partner, nit, password)
	var answers []string
	r := call(t, "POST", in.URL+"/auth/login", jsonCT, mustJSON(map[string]string{"user": partner, "password": password}))
	tok, _ := r.Body["access_token"].(string)
	if r.Status != 200 || tok == "" {
		t.Fatalf("built-in login: %d %s", r.Status, r.Raw)
	}
	if r := in.report(t, tok, mustJSON(fixture.FullBody(time.Now(), "CR-CRED-1", fixture.PDF(4096)))); r.Status != 503 {
		t.Fatalf("report with the bucket unreachable: %d %s", r.Status, r.Raw)
	} else {
		answers = append(answers, string(r.Raw))
	}
	if r := exchange(t, in, partner, password, nil); r.Status != 503 {
		t.Fatalf("token through the unreachable upstream: %d %s", r.Status, r.Raw)
	} else {
		answers = append(answers, string(r.Raw))
	}
	answers = append(answers, string(call(t, "GET", in.URL+"/readyz", nil, nil).Raw))
	logs := in.logs.String()
	for _, want := range []string{`"uploads.s3.endpoint":"http://minio:***@`, `"login.url":"http://partner:***@`, "s3 uploads s3://reports/ at http://minio:***@", "login upstream"} {
		if !strings.Contains(logs, want) {
			t.Errorf("the log lacks %q: the failures it should show were not logged", want)
		}
	}
	for i, text := range append(answers, logs) {
		if strings.Contains(text, urlPassword) {
			t.Errorf("text %d shows the URL's password:\n%s", i, text)
		}
	}
}

// TestNoCredentialsInStoreErrors: a store.dsn with a password, for a
// database that does not answer, is masked in the start-up line and in
// every error logged while the service waits for it.
func TestNoCredentialsInStoreErrors(t *testing.T) {
	in := mustStart(t, func(c *config.Config) {
		c.Store.Driver, c.Store.DSN = "mysql", "disb:"+urlPassword+"@tcp("+closedAddr(t)+")/disb"
	})
	if r := call(t, "GET", in.URL+"/readyz", nil, nil); r.Status != 503 || strings.Contains(string(r.Raw), urlPassword) {
		t.Fatalf("/readyz without the database: %d %s", r.Status, r.Raw)
	}
	logs := in.logs.String()
	if !strings.Contains(logs, `"store.dsn":"disb:***@tcp(`) || !strings.Contains(logs, "database not usable at start") {
		t.Fatalf("the log does not show the masked DSN and the failure:\n%s", logs)
	}
	if strings.Contains(logs, urlPassword) {
		t.Fatalf("the log shows the DSN's password:\n%s", logs)
	}
}
