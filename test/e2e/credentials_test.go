package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/testkit"
)

// TestNoCredentialsInLogsOrErrors: a user:password@ in uploads.s3.endpoint
// and login.url is masked in the start-up configuration line, in every S3
// error (a report whose PUT fails, the readiness check) and in an
// upstream login's error, in logs and answers alike (contract §7; the
// third round's finding 8).
func TestNoCredentialsInLogsOrErrors(t *testing.T) {
	t.Parallel()
	in := testkit.MustStart(t, func(c *config.Config) {
		c.Uploads.Backend, c.Uploads.S3.Bucket, c.Uploads.S3.PathStyle = "s3", "reports", true
		c.Uploads.S3.Endpoint = "http://minio:" + testkit.URLPassword + "@" + testkit.ClosedAddr(t)
		c.Uploads.S3.AccessKeyID, c.Uploads.S3.SecretAccessKey, c.Uploads.S3.Region = "AKIDTEST", "not-the-url-password", "us-east-1"
		c.Login.URL = "http://partner:" + testkit.URLPassword + "@" + testkit.ClosedAddr(t) + "/auth/login"
	})
	in.AddUser(t, testkit.Partner, testkit.Nit, testkit.Password)
	var answers []string
	r := testkit.Call(t, "POST", in.URL+"/auth/login", testkit.JSONCT, testkit.MustJSON(map[string]string{"user": testkit.Partner, "password": testkit.Password}))
	tok, _ := r.Body["access_token"].(string)
	if r.Status != 200 || tok == "" {
		t.Fatalf("built-in login: %d %s", r.Status, r.Raw)
	}
	if r := in.Report(t, tok, testkit.MustJSON(fixture.FullBody(time.Now(), "CR-CRED-1", fixture.PDF(4096)))); r.Status != 503 {
		t.Fatalf("report with the bucket unreachable: %d %s", r.Status, r.Raw)
	} else {
		answers = append(answers, string(r.Raw))
	}
	if r := testkit.Exchange(t, in, testkit.Partner, testkit.Password, nil); r.Status != 503 {
		t.Fatalf("token through the unreachable upstream: %d %s", r.Status, r.Raw)
	} else {
		answers = append(answers, string(r.Raw))
	}
	answers = append(answers, string(testkit.Call(t, "GET", in.URL+"/readyz", nil, nil).Raw))
	logs := in.Logs.String()
	for _, want := range []string{`"uploads.s3.endpoint":"http://minio:***@`, `"login.url":"http://partner:***@`, "s3 uploads s3://reports/ at http://minio:***@", "login upstream"} {
		if !strings.Contains(logs, want) {
			t.Errorf("the log lacks %q: the failures it should show were not logged", want)
		}
	}
	for i, text := range append(answers, logs) {
		if strings.Contains(text, testkit.URLPassword) {
			t.Errorf("text %d shows the URL's password:\n%s", i, text)
		}
	}
}

// TestNoCredentialsInStoreErrors: a store.dsn with a password, for a
// database that does not answer, is masked in the start-up line and in
// every error logged while the service waits for it.
func TestNoCredentialsInStoreErrors(t *testing.T) {
	t.Parallel()
	in := testkit.MustStart(t, func(c *config.Config) {
		c.Store.Driver, c.Store.DSN = "mysql", "disb:"+testkit.URLPassword+"@tcp("+testkit.ClosedAddr(t)+")/disb"
	})
	if r := testkit.Call(t, "GET", in.URL+"/readyz", nil, nil); r.Status != 503 || strings.Contains(string(r.Raw), testkit.URLPassword) {
		t.Fatalf("/readyz without the database: %d %s", r.Status, r.Raw)
	}
	logs := in.Logs.String()
	if !strings.Contains(logs, `"store.dsn":"disb:***@tcp(`) || !strings.Contains(logs, "database not usable at start") {
		t.Fatalf("the log does not show the masked DSN and the failure:\n%s", logs)
	}
	if strings.Contains(logs, testkit.URLPassword) {
		t.Fatalf("the log shows the DSN's password:\n%s", logs)
	}
}
