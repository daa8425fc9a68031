// Package upstream is the HTTP client of an external login service (the
// spec's {login_url}); the built-in login's POST /auth/login speaks the
// same protocol, so one instance can be another's upstream.
package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// Client exchanges credentials at an upstream login URL.
type Client struct {
	URL     string
	HTTP    *http.Client
	Observe func(outcome string, d time.Duration) // optional metrics hook
}

var _ ports.CredentialExchange = (*Client)(nil)

// New returns a client of the login at url that waits at most timeout
// for an answer (login.timeout; a zero is refused).
func New(url string, timeout time.Duration) (*Client, error) {
	if url == "" || timeout <= 0 {
		return nil, fmt.Errorf("upstream: a URL (%t) and a timeout above 0 (%s) are required", url != "", timeout)
	}
	return &Client{URL: url, HTTP: &http.Client{Timeout: timeout, CheckRedirect: noRedirects}}, nil
}

// noRedirects keeps the credentials at the configured URL: Go's client
// sends a POST's body again on a 307 or 308, to whatever host the
// Location names. A redirect is an answer like any other not understood
// (temporarily_unavailable), naming the status; the operator configures
// the URL it points to.
func noRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

type loginRequest struct {
	User     string `json:"user"`
	Password string `json:"password"`
}

type loginResponse struct {
	AccessToken string `json:"access_token"`
}

// unavailable is an outage of the upstream. Errors that may quote the
// URL (which may hold a user:password@) are masked before they get here.
func unavailable(cause error) error {
	return domain.Unavailable("login upstream unavailable").WithCause(cause)
}

// Exchange posts {user, password} to the upstream. 200 with access_token
// is a token; 400/401/403 is invalid_client; 429 is slow_down; anything
// else, a timeout or a refused connection is temporarily_unavailable.
func (c *Client) Exchange(ctx context.Context, user, password string) (tok string, err error) {
	start := time.Now()
	defer func() {
		if c.Observe != nil {
			c.Observe(outcome(err), time.Since(start))
		}
	}()
	body, err := json.Marshal(loginRequest{User: user, Password: password})
	if err != nil {
		return "", unavailable(err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, bytes.NewReader(body))
	if err != nil {
		return "", unavailable(fmt.Errorf("login upstream: %w", domain.MaskError(err)))
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return "", unavailable(fmt.Errorf("login upstream: %w", domain.MaskError(err)))
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return "", unavailable(fmt.Errorf("login upstream: read: %w", err))
	}
	switch resp.StatusCode {
	case http.StatusOK:
		var lr loginResponse
		if err := json.Unmarshal(data, &lr); err != nil || lr.AccessToken == "" {
			return "", unavailable(fmt.Errorf("login upstream: 200 without access_token"))
		}
		return lr.AccessToken, nil
	case http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden:
		return "", domain.InvalidClient().WithCause(fmt.Errorf("login upstream answered %d", resp.StatusCode))
	case http.StatusTooManyRequests:
		return "", domain.Throttled("upstream", retryAfter(resp.Header.Get("Retry-After")))
	}
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		return "", unavailable(fmt.Errorf("login upstream answered %d, a redirect (not followed: set login.url to where it points)", resp.StatusCode))
	}
	return "", unavailable(fmt.Errorf("login upstream answered %d", resp.StatusCode))
}

func outcome(err error) string {
	switch {
	case err == nil:
		return "ok"
	case domain.IsKind(err, domain.ErrInvalidClient):
		return "invalid_client"
	case domain.IsKind(err, domain.ErrThrottled):
		return "slow_down"
	}
	return "unavailable"
}

// retryAfter reads a Retry-After of seconds; absent or unreadable, a
// minute (the contract's address window).
func retryAfter(h string) time.Duration {
	if n, err := strconv.Atoi(strings.TrimSpace(h)); err == nil && n > 0 && n < 86400 {
		return time.Duration(n) * time.Second
	}
	return time.Minute
}
