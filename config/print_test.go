package config

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// TestPrintKeepsHostFiguresAuto: config print writes a "0 = auto" key
// whose value comes from this host (the CPU count) as configured, with
// the value in effect as a comment, so a printed file copied to another
// host does not pin this host's figure; loaded back, it is still auto.
func TestPrintKeepsHostFiguresAuto(t *testing.T) {
	c, err := Load(writeFile(t, "store:\n  dsn: data/x.db\n"))
	if err != nil {
		t.Fatal(err)
	}
	text := c.RedactedYAML()
	want := fmt.Sprintf("max_concurrent_hashes: 0   # auto: %d on this host", runtime.NumCPU())
	if !strings.Contains(text, want) {
		t.Fatalf("config print lacks %q:\n%s", want, text)
	}
	back, err := Load(writeFile(t, text))
	if err != nil {
		t.Fatalf("config print's text does not load: %v", err)
	}
	if back.Auth.MaxConcurrentHashes != 0 {
		t.Errorf("loaded back, auth.max_concurrent_hashes is %d, want 0 (auto)", back.Auth.MaxConcurrentHashes)
	}
}

// TestMaskedSecretsRefused: the *** that config print writes in place of
// a secret fails config check, naming the key, in a DSN, a URL or a
// secret of its own.
func TestMaskedSecretsRefused(t *testing.T) {
	for key, text := range map[string]string{
		"store.dsn":                    "store:\n  driver: mysql\n  dsn: 'disb:***@tcp(127.0.0.1:3306)/disbursement'\n",
		"login.url":                    "login:\n  url: 'https://svc:***@login.example/check'\n",
		"uploads.s3.secret_access_key": "uploads:\n  s3:\n    secret_access_key: '***'\n",
	} {
		_, err := Load(writeFile(t, text))
		if err == nil || !strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "***") {
			t.Errorf("%s holding ***: err = %v, want a refusal naming the key", key, err)
		}
	}
}
