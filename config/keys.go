package config

import (
	"sort"
	"strings"
)

// defaults lists every key with its default value; a key not listed here
// is unknown and refused.
var defaults = map[string]any{
	"http.addr":                "127.0.0.1:8080",
	"http.read_header_timeout": "10s",
	"http.read_timeout":        "60s",
	"http.write_timeout":       "90s",
	"http.idle_timeout":        "120s",
	"http.shutdown_grace":      "30s",
	"http.max_body_bytes":      int64(32 << 20),
	"http.report_timeout":      "60s",
	"http.trusted_proxies":     "",
	"throttle.user_failures":   10,
	"throttle.user_window":     "15m",
	"throttle.addr_failures":   30,
	"throttle.addr_window":     "1m",
	"store.driver":             "sqlite",
	"store.dsn":                "",
	"store.auto_migrate":       true,
	"store.max_open_conns":     0,
	"store.max_idle_conns":     0,
	"store.conn_max_lifetime":  "30m",
	"store.conn_max_idle_time": "5m",
	"store.busy_timeout":       "5s",
	"uploads.dir":              DefaultUploadsDir,
	"uploads.max_file_bytes":   int64(20 << 20),
	"uploads.allowed_types":    "pdf,png,jpg,tif",
	"auth.private_key_file":    "",
	"auth.public_keys_file":    "",
	"auth.issuer":              "disbursementd",
	"auth.audience":            "partner-api",
	"auth.leeway":              "60s",
	"auth.token_ttl":           "24h",
	"auth.bcrypt_cost":         12,
	"auth.token_cache_size":    10000,
	"auth.user_staleness":      "30s",
	"login.url":                "",
	"login.timeout":            "5s",
	"idempotency.ttl":          "24h",
	"idempotency.wait":         "30s",
	"log.format":               "auto",
	"log.level":                "info",
}

// Keys returns every configuration key, sorted.
func Keys() []string {
	out := make([]string, 0, len(defaults))
	for k := range defaults {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// EnvName is the environment variable of a key: DISB_HTTP_ADDR.
func EnvName(key string) string {
	return "DISB_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}
