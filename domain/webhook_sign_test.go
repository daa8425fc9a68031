package domain

import (
	"strings"
	"testing"
	"time"
)

// TestSignWebhookStandardVector: the example of the Standard Webhooks
// specification (its README's "Signature scheme"), signed here, gives
// the signature the specification prints.
func TestSignWebhookStandardVector(t *testing.T) {
	secret := WebhookSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	got, ok := SignWebhook([]WebhookSecret{secret}, "msg_p5jXN8AQM9LWM0D4loKWxJek", time.Unix(1614265330, 0), []byte(`{"test": 2432232314}`))
	if !ok || got != "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=" {
		t.Fatalf("signature %q (%v), want the specification's", got, ok)
	}
}

// TestSignWebhookTwoSecrets: during a rotation's overlap both secrets
// sign, separated by a space; a secret that does not decode signs
// nothing.
func TestSignWebhookTwoSecrets(t *testing.T) {
	a, _ := NewWebhookSecret([]byte(strings.Repeat("a", 32)))
	b, _ := NewWebhookSecret([]byte(strings.Repeat("b", 24)))
	got, ok := SignWebhook([]WebhookSecret{a, b, "whsec_!!"}, "evt_1", time.Unix(1, 0), []byte("{}"))
	parts := strings.Split(got, " ")
	if !ok || len(parts) != 2 || !strings.HasPrefix(parts[0], "v1,") || !strings.HasPrefix(parts[1], "v1,") || parts[0] == parts[1] {
		t.Fatalf("signatures %q", got)
	}
	if _, ok := SignWebhook([]WebhookSecret{"whsec_short"}, "evt_1", time.Unix(1, 0), nil); ok {
		t.Fatal("a secret that does not decode signed")
	}
}

func TestWebhookSecretBounds(t *testing.T) {
	for _, n := range []int{0, 23, 65} {
		if _, ok := NewWebhookSecret(make([]byte, n)); ok {
			t.Errorf("a secret of %d bytes was made", n)
		}
	}
	s, ok := NewWebhookSecret(make([]byte, 32))
	if !ok || !strings.HasPrefix(string(s), "whsec_") || !strings.HasSuffix(string(s), "=") {
		t.Fatalf("secret %q: want whsec_ and padded base64", s)
	}
	if k, ok := s.Key(); !ok || len(k) != 32 {
		t.Fatalf("key of %q: %d bytes, %v", s, len(k), ok)
	}
}

func TestRetrySchedule(t *testing.T) {
	s := DefaultRetrySchedule
	if d, ok := s.Next(1, 1); !ok || d != 0 {
		t.Errorf("first attempt after %s (%v), want at once", d, ok)
	}
	if d, ok := s.Next(2, 1); !ok || d != 6*time.Second {
		t.Errorf("second attempt +20%%: %s, want 6s", d)
	}
	if d, ok := s.Next(3, -1); !ok || d != 4*time.Minute {
		t.Errorf("third attempt -20%%: %s, want 4m", d)
	}
	if d, _ := s.Next(2, 7); d != 6*time.Second {
		t.Errorf("jitter beyond 1 is held at 1: %s", d)
	}
	if _, ok := s.Next(len(s)+1, 0); ok {
		t.Error("an attempt past the schedule was given a delay")
	}
	if err := CheckRetrySchedule(nil); err == nil {
		t.Error("an empty schedule was accepted")
	}
	if err := CheckRetrySchedule(RetrySchedule{-time.Second}); err == nil {
		t.Error("a negative delay was accepted")
	}
}
