package main

import (
	"strings"
	"testing"
)

// TestResultsMaskSecrets: the command line and the settings a results
// file records hide the S3 secret key and DSN passwords (the committed
// docs/load files carried the secret key twice, in clear), and keep
// everything else as given.
func TestResultsMaskSecrets(t *testing.T) {
	words := []string{"-store", "mysql", "-dsn", "root:dbpass-1@tcp(127.0.0.1:3306)/",
		"-env", "DISB_UPLOADS_S3_SECRET_ACCESS_KEY=s3secret-2", "-env=DISB_UPLOADS_S3_SECRET_ACCESS_KEY=s3secret-3",
		"-env", "DISB_STORE_DSN=disb:dbpass-4@tcp(db:3306)/x", "-env", "DISB_LOGIN_URL=https://u:urlpass-5@login/auth",
		"-dsn=root:dbpass-6@tcp(h:1)/", "-env", "DISB_UPLOADS_S3_BUCKET=disb-test", "-c", "32,128"}
	got := strings.Join(masked(words), " ")
	for _, secret := range []string{"dbpass-1", "s3secret-2", "s3secret-3", "dbpass-4", "urlpass-5", "dbpass-6"} {
		if strings.Contains(got, secret) {
			t.Errorf("%s is in the results: %s", secret, got)
		}
	}
	for _, kept := range []string{"DISB_UPLOADS_S3_SECRET_ACCESS_KEY=***", "DISB_UPLOADS_S3_BUCKET=disb-test", "root:***@tcp(127.0.0.1:3306)/", "-c 32,128"} {
		if !strings.Contains(got, kept) {
			t.Errorf("the results lack %q: %s", kept, got)
		}
	}
}
