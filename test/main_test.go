package test

import (
	"encoding/base64"
	"flag"
	"fmt"
	"net/netip"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/lender/disbursementd/test/fixture"
)

// fullRun is true when no -run filter was given: only then must the
// post-run checks have seen enough to prove something.
func fullRun() bool {
	f := flag.Lookup("test.run")
	return f == nil || f.Value.String() == ""
}

func mustPrefix(s string) netip.Prefix { return netip.MustParsePrefix(s) }

// TestMain runs the suite, then reads every log line the instances wrote
// (no password, token, base64 content or full identification number may
// appear in them) and checks every response received against the OpenAPI
// document, so neither can drift.
func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 {
		if leaks := logLeaks(); len(leaks) > 0 {
			fmt.Fprintf(os.Stderr, "FAIL: the service logged secrets:\n%s\n", strings.Join(leaks, "\n"))
			code = 1
		}
		if bad := openAPIViolations(); len(bad) > 0 {
			fmt.Fprintf(os.Stderr, "FAIL: responses that openapi.yaml does not describe:\n%s\n", strings.Join(bad, "\n"))
			code = 1
		}
	}
	os.Exit(code)
}

var jwtPattern = regexp.MustCompile(`eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}`)

func logLeaks() []string {
	allLogs.mu.Lock()
	defer allLogs.mu.Unlock()
	var all strings.Builder
	for _, b := range allLogs.bufs {
		all.WriteString(b.String())
	}
	logs := all.String()
	if len(logs) < 1000 && fullRun() {
		return []string{fmt.Sprintf("only %d bytes of logs were captured: the leak check would prove nothing", len(logs))}
	}
	pdfB64 := base64.StdEncoding.EncodeToString(fixture.PDF(4096))[:24]
	forbidden := map[string]string{
		"password":              password,
		"a URL's password":      urlPassword,
		"base64 of a PDF":       pdfB64,
		"base64 PDF header":     "JVBERi0",
		"identification number": "1020304050",
		"dotted identification": "1.020.304.050",
		"private key":           "PRIVATE KEY",
		"bearer header":         "bearer eyJ",
	}
	var leaks []string
	for what, s := range forbidden {
		if strings.Contains(logs, s) {
			leaks = append(leaks, what+" ("+s+")")
		}
	}
	if jwtPattern.MatchString(logs) {
		leaks = append(leaks, "a JWT: "+jwtPattern.FindString(logs)[:20]+"…")
	}
	return leaks
}
