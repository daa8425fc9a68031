package config

import (
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/lender/disbursementd/domain"
)

// Redacted returns the effective configuration for the start-up log: every
// key, each value written as the file takes it (a "0 = auto" setting as
// the value in effect), with secrets as *** and the passwords of DSNs and
// URLs hidden.
func (c *Config) Redacted() map[string]any {
	out := map[string]any{}
	for _, s := range Settings() {
		v := s.field(c).Interface()
		if resolve, ok := derived[s.Key]; ok {
			v = resolve(c)
		}
		switch s.Redact {
		case redactSecret:
			if v != "" {
				v = "***"
			}
		case redactDSN, redactURL:
			v = domain.MaskCredentials(v.(string))
		}
		out[s.Key] = display(v)
	}
	return out
}

// display writes a setting's value the way the file takes it; numbers and
// booleans stay themselves.
func display(v any) any {
	switch x := v.(type) {
	case time.Duration:
		return x.String()
	case ByteSize:
		return x.String()
	case []string:
		return strings.Join(x, ",")
	case domain.RetrySchedule:
		return displaySchedule(x)
	case []netip.Prefix:
		parts := make([]string, len(x))
		for i, p := range x {
			parts[i] = p.String()
		}
		return strings.Join(parts, ",")
	}
	return v
}

// printHeader opens what RedactedYAML writes.
const printHeader = `# The effective configuration (disbursementd config print): every key after the
# file, the environment and the derived defaults, secrets as *** and the passwords
# of DSNs and URLs hidden.
`

// RedactedYAML writes Redacted as a YAML file of the example's shape
// (config print): with the secrets filled in it would load to c.
func (c *Config) RedactedYAML() string {
	values := c.Redacted()
	return renderYAML(printHeader, func(s Setting) string {
		if hostDerived[s.Key] && s.field(c).IsZero() {
			return yamlValue(s, fmt.Sprint(display(s.field(c).Interface()))) +
				fmt.Sprintf("   # auto: %v on this host", values[s.Key])
		}
		return yamlValue(s, fmt.Sprint(values[s.Key]))
	}, false)
}

// refuseMasked refuses a secret, DSN or URL setting that holds the ***
// that config print and the start-up log write in a secret's place: a
// printed file loaded back must fail config check, not connect without
// its password.
func (c *Config) refuseMasked() error {
	for _, s := range Settings() {
		if s.Redact == "" {
			continue
		}
		v, ok := s.field(c).Interface().(string)
		if ok && (v == "***" || strings.Contains(v, ":***@")) {
			return keyError(s.Key, "holds ***, the mask config print writes in place of a secret; write the real value")
		}
	}
	return nil
}
