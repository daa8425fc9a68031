package upstream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
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

// TestRedirectsAreNotFollowed: a login URL that answers 307 (or 308)
// made Go's client POST the partner's user and password again to the
// host the Location names (found by the nineteenth session's attacker
// review). The redirect is now an outage naming the status, and the
// other host hears nothing.
func TestRedirectsAreNotFollowed(t *testing.T) {
	var heard atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		heard.Add(1)
		_, _ = io.Copy(io.Discard, r.Body)
		_, _ = w.Write([]byte(`{"access_token":"t"}`))
	}))
	defer elsewhere.Close()
	for _, code := range []int{http.StatusTemporaryRedirect, http.StatusPermanentRedirect, http.StatusFound} {
		login := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, elsewhere.URL+"/auth/login", code)
		}))
		c, err := New(login.URL+"/auth/login", 2*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		tok, err := c.Exchange(t.Context(), "acme", "s3cret-password")
		login.Close()
		if tok != "" || !domain.IsKind(err, domain.ErrUnavailable) || !strings.Contains(err.Error(), fmt.Sprintf("answered %d, a redirect", code)) {
			t.Errorf("%d: token %q, error %v; want unavailable naming the redirect", code, tok, err)
		}
	}
	if n := heard.Load(); n != 0 {
		t.Errorf("the host a redirect named heard %d requests", n)
	}
}
