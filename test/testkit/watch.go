package testkit

import (
	"encoding/base64"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/test/fixture"
)

// watch checks, when the test that started a service ends, what that
// service wrote to its log (no password, token, base64 content or full
// identification number: logLeaks) and every answer it gave through the
// recording client (as openapi.yaml describes it). A failure is the
// test's own and names what was wrong. base is read at the end, so a
// service started on :0 may learn its address after watch is called.
func watch(t testing.TB, base func() string, logs *SyncBuffer) {
	started := time.Now()
	t.Cleanup(func() {
		if leaks := LogLeaks(logs.String()); len(leaks) > 0 {
			t.Errorf("the service logged secrets in this test:\n%s", strings.Join(leaks, "\n"))
		}
		if bad := openAPIViolations(takeExchanges(base(), started)); len(bad) > 0 {
			t.Errorf("answers of this test that openapi.yaml does not describe:\n%s", strings.Join(bad, "\n"))
		}
	})
}

var jwtPattern = regexp.MustCompile(`eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}`)

// LogLeaks names the secrets found in logs, each with the line it is in.
func LogLeaks(logs string) []string {
	pdfB64 := base64.StdEncoding.EncodeToString(fixture.PDF(4096))[:24]
	forbidden := map[string]string{
		"password":              Password,
		"a URL's password":      URLPassword,
		"base64 of a PDF":       pdfB64,
		"base64 PDF header":     "JVBERi0",
		"identification number": "1020304050",
		"dotted identification": "1.020.304.050",
		"private key":           "PRIVATE KEY",
		"bearer header":         "bearer eyJ",
	}
	var leaks []string
	for line := range strings.Lines(logs) {
		for what, s := range forbidden {
			if strings.Contains(line, s) {
				leaks = append(leaks, fmt.Sprintf("%s (%s) in: %.300s", what, s, strings.TrimSpace(line)))
			}
		}
		if m := jwtPattern.FindString(line); m != "" {
			leaks = append(leaks, fmt.Sprintf("a JWT (%s…) in: %.300s", m[:20], strings.TrimSpace(line)))
		}
	}
	return leaks
}
