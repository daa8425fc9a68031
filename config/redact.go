package config

import (
	"net/netip"
	"net/url"
	"strings"
	"time"
)

// Redacted returns the effective configuration for the start-up log: every
// key, each value written as the file takes it, with secrets as *** and the
// passwords of DSNs and URLs hidden.
func (c *Config) Redacted() map[string]any {
	out := map[string]any{}
	for _, s := range Settings() {
		v := s.field(c).Interface()
		switch s.Redact {
		case redactSecret:
			if v != "" {
				v = "***"
			}
		case redactDSN:
			v = RedactDSN(v.(string))
		case redactURL:
			v = RedactURL(v.(string))
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
	case []netip.Prefix:
		parts := make([]string, len(x))
		for i, p := range x {
			parts[i] = p.String()
		}
		return strings.Join(parts, ",")
	}
	return v
}

// RedactDSN hides the password of a go-sql-driver DSN (user:pass@...).
func RedactDSN(dsn string) string {
	at := strings.LastIndex(dsn, "@")
	if at < 0 {
		return dsn
	}
	cred := dsn[:at]
	if i := strings.Index(cred, ":"); i >= 0 {
		return cred[:i] + ":***" + dsn[at:]
	}
	return dsn
}

// RedactURL hides the password of a URL's userinfo (https://u:pass@host).
func RedactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		// Unparseable: a password in it cannot be found, so show no userinfo.
		if at := strings.LastIndex(s, "@"); at >= 0 {
			return "***" + s[at:]
		}
		return s
	}
	return u.Redacted()
}
