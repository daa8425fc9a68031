package domain

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestMaskCredentials(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"https://partner:s3cret@login.example/auth/login", "https://partner:***@login.example/auth/login"},
		{"http://AKIA:wJalr/XUtn+FEMI@127.0.0.1:9000", "http://AKIA:***@127.0.0.1:9000"},
		{"disb:s3cret@tcp(db:3306)/disb?parseTime=true", "disb:***@tcp(db:3306)/disb?parseTime=true"},
		{"disb:p@ss:w@rd@tcp(db:3306)/disb", "disb:***@tcp(db:3306)/disb"},
		{"https://u:p%40ss@host/", "https://u:***@host/"},
		{`Put "http://ak:sk@127.0.0.1:1/b/k": dial tcp 127.0.0.1:1: connect: connection refused`,
			`Put "http://ak:***@127.0.0.1:1/b/k": dial tcp 127.0.0.1:1: connect: connection refused`},
		{"s3 uploads s3://b/ at http://ak:sk@h:9000: head: 403", "s3 uploads s3://b/ at http://ak:***@h:9000: head: 403"},
		{"store.dsn: root:pw@tcp(a)/x and login http://u:v@h", "store.dsn: root:***@tcp(a)/x and login http://u:***@h"},
		{"root@tcp(127.0.0.1:3306)/db", "root@tcp(127.0.0.1:3306)/db"},
		{"write to ops@example.com", "write to ops@example.com"},
		{"https://login.example/auth", "https://login.example/auth"},
		{"", ""},
		{"u:@h", "u:***@h"},
		{"@@::@", "@@:***@"},
	} {
		if got := MaskCredentials(tt.in); got != tt.want {
			t.Errorf("MaskCredentials(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestCredentialsNeverShowsThePassword: whatever the password holds
// (other than the separators that end a token in text), no part of it
// longer than one character is left.
func TestCredentialsNeverShowsThePassword(t *testing.T) {
	for _, pw := range []string{"plain", "with@at", "with:colon", "with/slash", "@@lead", "trail@@", "p%2Fq", "a@b:c/d@e"} {
		for _, form := range []string{"https://user:%s@host:9000/x", "user:%s@tcp(host:3306)/db", `dial "http://user:%s@h/": refused`} {
			text := fmt.Sprintf(form, pw)
			got := MaskCredentials(text)
			for _, part := range strings.FieldsFunc(pw, func(r rune) bool { return strings.ContainsRune("@:/", r) }) {
				if len(part) > 1 && strings.Contains(got, part) {
					t.Errorf("MaskCredentials(%q) = %q shows %q of the password", text, got, part)
				}
			}
		}
	}
}

func TestMaskError(t *testing.T) {
	base := errors.New("parse \"http://u:secret@h\": bad")
	err := fmt.Errorf("login upstream: %w", MaskError(base))
	if strings.Contains(err.Error(), "secret") || !errors.Is(err, base) {
		t.Fatalf("%v (is base: %v)", err, errors.Is(err, base))
	}
	if MaskError(nil) != nil {
		t.Fatal("MaskError(nil) is not nil")
	}
}
