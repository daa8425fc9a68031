package domain

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strconv"
	"strings"
	"time"
)

// WebhookSecret is an endpoint's signing secret as partners see it:
// "whsec_" and the padded base64 (RFC 4648 §4) of 24 to 64 random bytes,
// as Standard Webhooks v1 writes them.
type WebhookSecret string

// webhookSecretPrefix starts every signing secret.
const webhookSecretPrefix = "whsec_"

// WebhookSecretBytes is how many random bytes a new secret holds.
const WebhookSecretBytes = 32

// NewWebhookSecret returns the secret of key, which must be 24 to 64
// random bytes (the caller draws them: crypto/rand).
func NewWebhookSecret(key []byte) (WebhookSecret, bool) {
	if len(key) < 24 || len(key) > 64 {
		return "", false
	}
	return WebhookSecret(webhookSecretPrefix + base64.StdEncoding.EncodeToString(key)), true
}

// Key returns the secret's decoded bytes, the HMAC key; false when s is
// not a secret NewWebhookSecret makes.
func (s WebhookSecret) Key() ([]byte, bool) {
	b64, ok := strings.CutPrefix(string(s), webhookSecretPrefix)
	if !ok {
		return nil, false
	}
	key, err := base64.StdEncoding.Strict().DecodeString(b64)
	if err != nil || len(key) < 24 || len(key) > 64 {
		return nil, false
	}
	return key, true
}

// SignWebhook returns the value of the webhook-signature header of a
// delivery of body, with message id (the event id) at ts: for each secret
// "v1," and the base64 HMAC-SHA256 of "{id}.{ts}.{body}" under its key,
// separated by spaces (Standard Webhooks v1). A secret that does not
// decode signs nothing; false when none did.
func SignWebhook(secrets []WebhookSecret, id string, ts time.Time, body []byte) (string, bool) {
	var sigs []string
	unix := strconv.FormatInt(ts.Unix(), 10)
	for _, s := range secrets {
		key, ok := s.Key()
		if !ok {
			continue
		}
		mac := hmac.New(sha256.New, key)
		mac.Write([]byte(id))
		mac.Write([]byte{'.'})
		mac.Write([]byte(unix))
		mac.Write([]byte{'.'})
		mac.Write(body)
		sigs = append(sigs, "v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil)))
	}
	return strings.Join(sigs, " "), len(sigs) > 0
}

// RetrySchedule is when a delivery is tried again after each failed
// attempt (webhooks.retry_schedule): the first delay is that of the first
// attempt after the event (0: at once).
type RetrySchedule []time.Duration

// DefaultRetrySchedule is contract §11's: at once, 5 s, 5 min, 30 min,
// 2 h, 5 h, 10 h, 10 h.
var DefaultRetrySchedule = RetrySchedule{0, 5 * time.Second, 5 * time.Minute, 30 * time.Minute,
	2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour}

// RetryJitter is how far a delay may move either way: 20 % of it.
const RetryJitter = 0.2

// CheckRetrySchedule is the rule of webhooks.retry_schedule: at least one
// delay, none negative, none longer than a week.
func CheckRetrySchedule(s RetrySchedule) error {
	if len(s) == 0 {
		return NewError(ErrInvalidInput, "invalid_retry_schedule", "an empty retry schedule: give at least one delay (0s: at once)")
	}
	for i, d := range s {
		if d < 0 || d > 7*24*time.Hour {
			return NewError(ErrInvalidInput, "invalid_retry_schedule", "delay "+strconv.Itoa(i+1)+" is "+d.String()+": want 0 to 168h")
		}
	}
	return nil
}

// Next returns the delay before attempt number attempt (1: the first),
// moved by jitter (-1 to 1) times RetryJitter of it, and false when the
// schedule has no such attempt: the delivery has failed.
func (s RetrySchedule) Next(attempt int, jitter float64) (time.Duration, bool) {
	if attempt < 1 || attempt > len(s) {
		return 0, false
	}
	jitter = max(-1, min(1, jitter))
	d := s[attempt-1]
	return d + time.Duration(float64(d)*RetryJitter*jitter), true
}
