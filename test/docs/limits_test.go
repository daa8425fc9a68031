package docs

import (
	"regexp"
	"strings"
	"testing"

	"github.com/lender/disbursementd/config"
)

// guideLimits are the settings each language's "Limits to plan by" table
// of the partner guide must state (issue 36): what a partner plans its
// batch jobs by.
var guideLimits = []string{
	"http.lookup_rate_per_partner", "http.lookup_slots_per_partner", "http.lookup_slots",
	"http.max_body_bytes", "uploads.max_file_bytes", "http.max_members", "http.max_problems",
	"http.min_body_rate", "http.body_rate_grace", "http.report_timeout", "http.max_in_flight",
	"http.max_bytes_in_flight", "idempotency.ttl", "auth.token_ttl",
	"throttle.user_failures", "throttle.user_window", "throttle.addr_failures", "throttle.addr_window",
	"webhooks.max_endpoints",
}

var limitRow = regexp.MustCompile("(?m)^\\| [^|]+ \\| ([^|]*) \\| `([a-z_.]+)` \\| [^|]*\\|$")

// TestGuideLimitsAreTheDefaults: the partner guide's limits, in Spanish
// and in English, are the configuration's defaults, so that they cannot
// drift: each row's value, written for a reader ("32 MiB", "15 min"),
// is the setting's default once spaces are dropped ("32MiB", "15m"); each
// of guideLimits has a row in both tables.
func TestGuideLimitsAreTheDefaults(t *testing.T) {
	guide := repoFile(t, "docs/partner-guide.md")
	defaults := map[string]string{}
	for _, s := range config.Settings() {
		defaults[s.Key] = s.Default
	}
	for _, title := range []string{"### 15. Límites para planificar", "### 15. Limits to plan by"} {
		_, section, ok := strings.Cut(guide, title+"\n")
		if !ok {
			t.Errorf("the guide has no section %q", title)
			continue
		}
		if end := strings.Index(section, "\n### "); end >= 0 {
			section = section[:end]
		}
		seen := map[string]bool{}
		for _, m := range limitRow.FindAllStringSubmatch(section, -1) {
			value, key := m[1], m[2]
			def, ok := defaults[key]
			if !ok {
				t.Errorf("%s: %s is not a setting", title, key)
				continue
			}
			seen[key] = true
			if got := strings.ReplaceAll(strings.ReplaceAll(value, " ", ""), "min", "m"); got != def {
				t.Errorf("%s: %s is %q in the guide, %q in the configuration's defaults", title, key, value, def)
			}
		}
		for _, key := range guideLimits {
			if !seen[key] {
				t.Errorf("%s: no row for %s", title, key)
			}
		}
	}
}
