package upstream

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
)

// TestErrorsMaskTheURLsPassword: a login.url with a user:password@ that
// cannot be used (here a host with a space, which only the request's
// URL parser refuses) fails as temporarily unavailable, and the error,
// which is logged, quotes the URL with its password masked.
func TestErrorsMaskTheURLsPassword(t *testing.T) {
	c, err := New("http://partner:up-secret@login host/auth/login", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Exchange(context.Background(), "acme", "pw")
	if !errors.Is(err, domain.ErrUnavailable) {
		t.Fatalf("err = %v, want temporarily unavailable", err)
	}
	var de *domain.Error
	if !errors.As(err, &de) || de.Cause == nil {
		t.Fatalf("err = %v: no cause to log", err)
	}
	if text := de.Cause.Error(); strings.Contains(text, "up-secret") || !strings.Contains(text, "partner:***@") {
		t.Fatalf("the logged cause is %q: want the URL with its password masked", text)
	}
}

// TestNewRefusesZeroTimeout: the timeout is login.timeout's; the client
// chooses none itself.
func TestNewRefusesZeroTimeout(t *testing.T) {
	if _, err := New("http://login.example/auth/login", 0); err == nil {
		t.Error("New with timeout 0: no error")
	}
	if _, err := New("", time.Second); err == nil {
		t.Error("New without a URL: no error")
	}
}
