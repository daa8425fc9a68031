package config

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
)

// TestWebhooksDefaults: the webhooks section's defaults are contract
// §11's, and the retry schedule's is the domain's.
func TestWebhooksDefaults(t *testing.T) {
	w := Defaults().Webhooks
	want := WebhooksConfig{RetrySchedule: domain.DefaultRetrySchedule, Timeout: 10 * time.Second, DisableAfter: 120 * time.Hour,
		MaxEndpoints: 5, Workers: 16, WorkersPerEndpoint: 2, PollInterval: time.Second}
	if !reflect.DeepEqual(w, want) {
		t.Errorf("defaults %+v, want %+v", w, want)
	}
	if got := Defaults().Redacted()["webhooks.retry_schedule"]; got != "0s,5s,5m0s,30m0s,2h0m0s,5h0m0s,10h0m0s,10h0m0s" {
		t.Errorf("the start-up log writes the schedule as %v", got)
	}
}

// TestWebhooksFromEnvAndFile: the hosts allowed insecure and the retry
// schedule are comma-separated lists in the environment (spaces
// around items dropped) and lists or strings in the file.
func TestWebhooksFromEnvAndFile(t *testing.T) {
	t.Run("env", func(t *testing.T) {
		t.Chdir(t.TempDir())
		t.Setenv("DISB_WEBHOOKS_ALLOW_INSECURE_HOSTS", "receiver.internal, 127.0.0.1,::1")
		t.Setenv("DISB_WEBHOOKS_RETRY_SCHEDULE", "0s, 30s,1h")
		c, err := Load("")
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(c.Webhooks.AllowInsecureHosts, []string{"receiver.internal", "127.0.0.1", "::1"}) ||
			!slices.Equal(c.Webhooks.RetrySchedule, domain.RetrySchedule{0, 30 * time.Second, time.Hour}) {
			t.Errorf("from the environment: %+v", c.Webhooks)
		}
	})
	t.Run("file", func(t *testing.T) {
		c, err := Load(writeFile(t, "webhooks:\n  allow_insecure_hosts: [hooks.lan]\n  retry_schedule: [1s, 2m]\n"))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(c.Webhooks.AllowInsecureHosts, []string{"hooks.lan"}) ||
			!slices.Equal(c.Webhooks.RetrySchedule, domain.RetrySchedule{time.Second, 2 * time.Minute}) {
			t.Errorf("from the file: %+v", c.Webhooks)
		}
	})
}

// TestWebhooksRefusals: each value out of its bounds is one line naming
// its key and variable.
func TestWebhooksRefusals(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, tt := range []struct{ key, value string }{
		{"webhooks.retry_schedule", "0s,soon"},
		{"webhooks.retry_schedule", "0s,-5s"},
		{"webhooks.retry_schedule", "0s,200h"},
		{"webhooks.retry_schedule", ","},
		{"webhooks.allow_insecure_hosts", "http://receiver.internal"},
		{"webhooks.allow_insecure_hosts", "receiver.internal:8443"},
		{"webhooks.allow_insecure_hosts", "[::1]"},
		{"webhooks.allow_insecure_hosts", "hooks.\u0130ntranet.test"},
		{"webhooks.timeout", "0s"},
		{"webhooks.timeout", "10m"},
		{"webhooks.disable_after", "30m"},
		{"webhooks.poll_interval", "10s"},
		{"webhooks.poll_interval", "10ms"},
		{"webhooks.workers", "0"},
		{"webhooks.workers_per_endpoint", "17"},
		{"webhooks.workers_per_partner", "1"},  // under workers_per_endpoint (2)
		{"webhooks.workers_per_partner", "17"}, // over workers (16)
		{"webhooks.workers_per_partner", "-1"},
		{"webhooks.max_endpoints", "0"},
	} {
		t.Run(tt.key+"="+tt.value, func(t *testing.T) {
			t.Setenv(EnvName(tt.key), tt.value)
			_, err := Load("")
			mustNameKey(t, err, tt.key)
		})
	}
	t.Run("the partner share in effect", func(t *testing.T) {
		for _, tt := range []struct{ workers, perEndpoint, perPartner, want int }{
			{16, 2, 0, 4}, {16, 8, 0, 8}, {3, 2, 0, 2}, {1, 1, 0, 1}, {16, 2, 10, 10},
		} {
			w := WebhooksConfig{Workers: tt.workers, WorkersPerEndpoint: tt.perEndpoint, WorkersPerPartner: tt.perPartner}
			if got := w.PartnerWorkers(); got != tt.want {
				t.Errorf("workers %d, per endpoint %d, per partner %d: %d in effect, want %d", tt.workers, tt.perEndpoint, tt.perPartner, got, tt.want)
			}
		}
	})
	t.Run("an empty schedule in the file", func(t *testing.T) {
		_, err := Load(writeFile(t, "webhooks:\n  retry_schedule: []\n"))
		mustNameKey(t, err, "webhooks.retry_schedule")
	})
}
