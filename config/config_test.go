package config

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestDefaultsAreTheEmbeddedDefault(t *testing.T) {
	c := Defaults()
	if c.HTTP.Addr != "127.0.0.1:8080" || c.Store.Driver != "sqlite" || c.Store.DSN != DefaultSQLitePath ||
		c.Uploads.Dir != DefaultUploadsDir || c.Auth.PrivateKeyFile != DefaultKeyFile || !c.GenerateKeys ||
		c.Login.URL != "" || c.HTTP.MaxBodyBytes != 32<<20 || c.Uploads.MaxFileBytes != 20<<20 ||
		c.Auth.Leeway != time.Minute || c.Idempotency.Wait != 30*time.Second {
		t.Fatalf("Defaults() = %+v", c)
	}
	// The bounds of the second round of work (CONTRACT.md §7).
	if c.HTTP.MaxInFlight != 256 || c.HTTP.MaxMembers != 256 || c.HTTP.MaxProblems != 100 ||
		c.Store.MaxOpenConns != 32 || c.Store.MaxIdleConns != 0 || c.Store.MaxBatch != 64 || c.Store.BatchWriters != 0 ||
		c.Uploads.Backend != "fs" || c.Uploads.S3.Region != "" || c.Uploads.S3.PathStyle ||
		c.Uploads.SweepInterval != 10*time.Minute || c.Uploads.AllowPDFScripts || c.Uploads.MaxImagePixels != 100_000_000 ||
		c.Auth.HashWait != 2*time.Second || c.Auth.UserCacheSize != 10000 ||
		c.Throttle.Backend != "auto" || c.Throttle.MaxEntries != 100000 || c.Idempotency.SweepBatch != 1000 ||
		c.Debug.PprofAddr != "" {
		t.Fatalf("Defaults() = %+v", c)
	}
	// "0 = auto" stays as written; its method resolves it (derived.go).
	if c.Uploads.MinFreeBytes != 0 || c.Uploads.MinFree() != 2*c.Uploads.MaxFileBytes ||
		c.Auth.MaxConcurrentHashes != 0 || c.Auth.ConcurrentHashes() != runtime.NumCPU() || c.Auth.TokenCache() != 10000 {
		t.Errorf("min_free_bytes %v (%v), max_concurrent_hashes %d (%d), token_cache_size %d", c.Uploads.MinFreeBytes, c.Uploads.MinFree(),
			c.Auth.MaxConcurrentHashes, c.Auth.ConcurrentHashes(), c.Auth.TokenCache())
	}
	if c.HTTP.StaleBound() != c.HTTP.ReportTimeout+5*time.Second {
		t.Errorf("stale bound %s", c.HTTP.StaleBound())
	}
}

func TestEnvOverridesEveryKey(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	// A file that sets only http.addr: env must still reach keys it lacks.
	file := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(file, []byte("http:\n  addr: 127.0.0.1:9000\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DISB_HTTP_ADDR", "0.0.0.0:9100")
	t.Setenv("DISB_STORE_DRIVER", "mysql")
	t.Setenv("DISB_STORE_DSN", "u:secret@tcp(db:3306)/disb")
	t.Setenv("DISB_UPLOADS_DIR", "/srv/uploads")
	t.Setenv("DISB_UPLOADS_ALLOWED_TYPES", "pdf, PNG")
	t.Setenv("DISB_LOGIN_URL", "https://login.example/auth/login")
	t.Setenv("DISB_AUTH_PRIVATE_KEY_FILE", "/keys/private.pem")
	t.Setenv("DISB_AUTH_PUBLIC_KEYS_FILE", "/keys/trusted.pem")
	t.Setenv("DISB_AUTH_LEEWAY", "30s")
	t.Setenv("DISB_IDEMPOTENCY_WAIT", "5s")
	t.Setenv("DISB_STORE_AUTO_MIGRATE", "false")
	t.Setenv("DISB_HTTP_MAX_BODY_BYTES", "8MiB")
	t.Setenv("DISB_HTTP_TRUSTED_PROXIES", "10.0.0.0/8, 192.0.2.7")
	t.Setenv("DISB_UPLOADS_BACKEND", "s3")
	t.Setenv("DISB_UPLOADS_S3_BUCKET", "reports")
	t.Setenv("DISB_UPLOADS_S3_PATH_STYLE", "true")
	t.Setenv("DISB_UPLOADS_MIN_FREE_BYTES", "1GiB")
	c, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if c.HTTP.Addr != "0.0.0.0:9100" || c.Store.Driver != "mysql" || c.Store.DSN != "u:secret@tcp(db:3306)/disb" ||
		c.Uploads.Dir != "/srv/uploads" || strings.Join(c.Uploads.AllowedTypes, ",") != "pdf,png" ||
		c.Login.URL != "https://login.example/auth/login" || c.Auth.PrivateKeyFile != "/keys/private.pem" || c.GenerateKeys ||
		c.Auth.PublicKeysFile != "/keys/trusted.pem" || c.Auth.Leeway != 30*time.Second ||
		c.Idempotency.Wait != 5*time.Second || c.Store.AutoMigrate || c.HTTP.MaxBodyBytes != 8<<20 ||
		display(c.HTTP.TrustedProxies) != "10.0.0.0/8,192.0.2.7/32" ||
		c.Uploads.Backend != "s3" || c.Uploads.S3.Bucket != "reports" || !c.Uploads.S3.PathStyle || c.Uploads.MinFreeBytes != 1<<30 {
		t.Fatalf("env not applied: %+v", c)
	}
	if got := c.Redacted()["store.dsn"]; got != "u:***@tcp(db:3306)/disb" {
		t.Errorf("redacted dsn = %v", got)
	}
}

func TestConfigErrorsNameTheKey(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, tt := range []struct {
		env, val, key string
	}{
		{"DISB_HTTP_ADDR", "nonsense", "http.addr"},
		{"DISB_HTTP_READ_TIMEOUT", "soon", "http.read_timeout"},
		{"DISB_HTTP_MAX_BODY_BYTES", "0", "http.max_body_bytes"},
		{"DISB_HTTP_MAX_IN_FLIGHT", "0", "http.max_in_flight"},
		{"DISB_HTTP_MAX_RECEIVING", "-1", "http.max_receiving"},
		{"DISB_HTTP_MAX_RECEIVING_PER_PARTNER", "1025", "http.max_receiving_per_partner"},
		{"DISB_HTTP_LOOKUP_RATE_PER_PARTNER", "0", "http.lookup_rate_per_partner"},
		{"DISB_HTTP_MIN_BODY_RATE", "0", "http.min_body_rate"},
		{"DISB_HTTP_BODY_RATE_GRACE", "0s", "http.body_rate_grace"},
		{"DISB_HTTP_TRUSTED_PROXIES", "10.0.0.0/8,proxy", "http.trusted_proxies"},
		{"DISB_STORE_DRIVER", "postgres", "store.driver"},
		{"DISB_STORE_AUTO_MIGRATE", "perhaps", "store.auto_migrate"},
		{"DISB_STORE_MAX_OPEN_CONNS", "0", "store.max_open_conns"},
		{"DISB_STORE_MAX_IDLE_CONNS", "33", "store.max_idle_conns"},
		{"DISB_STORE_MAX_IDLE_CONNS", "-1", "store.max_idle_conns"},
		{"DISB_STORE_BUSY_TIMEOUT", "0s", "store.busy_timeout"},
		{"DISB_STORE_READBACK_TIMEOUT", "0s", "store.readback_timeout"},
		{"DISB_LOGIN_TIMEOUT", "0s", "login.timeout"},
		{"DISB_IDEMPOTENCY_WAIT", "-1s", "idempotency.wait"},
		{"DISB_STORE_MAX_BATCH", "1001", "store.max_batch"},
		{"DISB_UPLOADS_MAX_FILE_BYTES", "-5", "uploads.max_file_bytes"},
		{"DISB_UPLOADS_MAX_FILE_BYTES", "99999999999GiB", "uploads.max_file_bytes"},
		{"DISB_UPLOADS_ALLOWED_TYPES", "pdf,exe", "uploads.allowed_types"},
		{"DISB_UPLOADS_BACKEND", "ftp", "uploads.backend"},
		{"DISB_UPLOADS_SWEEP_INTERVAL", "1ms", "uploads.sweep_interval"},
		{"DISB_UPLOADS_S3_ENDPOINT", "minio:9000", "uploads.s3.endpoint"},
		{"DISB_UPLOADS_S3_SECRET_ACCESS_KEY", "s", "uploads.s3.access_key_id"},
		{"DISB_AUTH_TOKEN_TTL", "48h", "auth.token_ttl"},
		{"DISB_AUTH_BCRYPT_COST", "9", "auth.bcrypt_cost"},
		{"DISB_AUTH_HASH_WAIT", "0s", "auth.hash_wait"},
		{"DISB_AUTH_ROTATION_OVERLAP", "0s", "auth.rotation_overlap"},
		{"DISB_AUTH_ROTATION_OVERLAP", "169h", "auth.rotation_overlap"},
		{"DISB_LOGIN_URL", "ftp://x", "login.url"},
		{"DISB_THROTTLE_BACKEND", "redis", "throttle.backend"},
		{"DISB_THROTTLE_MAX_ENTRIES", "0", "throttle.max_entries"},
		{"DISB_THROTTLE_DB_CONNS", "0", "throttle.db_conns"},
		{"DISB_THROTTLE_USER_WINDOW", "0s", "throttle.user_window"},
		{"DISB_THROTTLE_ADDR_WINDOW", "-1m", "throttle.addr_window"},
		{"DISB_THROTTLE_ADDR_FAILURES", "-1", "throttle.addr_failures"},
		{"DISB_HTTP_REPORT_TIMEOUT", "0s", "http.report_timeout"},
		{"DISB_HTTP_READ_HEADER_TIMEOUT", "0s", "http.read_header_timeout"},
		{"DISB_HTTP_SHUTDOWN_GRACE", "-1s", "http.shutdown_grace"},
		{"DISB_IDEMPOTENCY_TTL", "1h", "idempotency.ttl"},
		{"DISB_LOG_FORMAT", "xml", "log.format"},
		{"DISB_DEBUG_PPROF_ADDR", "6060", "debug.pprof_addr"},
		{"DISB_HTTP_METRICS_ADDR", "9090", "http.metrics_addr"},
		{"DISB_HTTP_METRICS_ADDR", "127.0.0.1:8080", "http.metrics_addr"},
	} {
		t.Run(tt.key, func(t *testing.T) {
			t.Setenv(tt.env, tt.val)
			_, err := Load("")
			mustNameKey(t, err, tt.key)
		})
	}
	t.Run("mysql without dsn", func(t *testing.T) {
		t.Setenv("DISB_STORE_DRIVER", "mysql")
		_, err := Load("")
		mustNameKey(t, err, "store.dsn")
	})
	t.Run("s3 without bucket", func(t *testing.T) {
		t.Setenv("DISB_UPLOADS_BACKEND", "s3")
		_, err := Load("")
		mustNameKey(t, err, "uploads.s3.bucket")
	})
	t.Run("a throttle turned off needs no window", func(t *testing.T) {
		t.Setenv("DISB_THROTTLE_USER_FAILURES", "0")
		t.Setenv("DISB_THROTTLE_USER_WINDOW", "0s")
		if _, err := Load(""); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("s3 without a region: the AWS chain decides", func(t *testing.T) {
		t.Setenv("DISB_UPLOADS_BACKEND", "s3")
		t.Setenv("DISB_UPLOADS_S3_BUCKET", "b")
		if c, err := Load(""); err != nil || c.Uploads.S3.Region != "" {
			t.Fatalf("region %q, %v", c.Uploads.S3.Region, err)
		}
	})
	t.Run("missing explicit file", func(t *testing.T) {
		if _, err := Load(filepath.Join(t.TempDir(), "nope.yaml")); err == nil {
			t.Fatal("missing --config file accepted")
		}
	})
}

// TestBadValuesInTheFile: values of the wrong shape in YAML (lists, maps,
// numbers where a duration goes) get the same one line as the environment,
// never mapstructure's own text.
func TestBadValuesInTheFile(t *testing.T) {
	for _, tt := range []struct{ name, yaml, key string }{
		{"list for a duration", "http:\n  read_timeout: [1, 2]\n", "http.read_timeout"},
		{"map for a string", "http:\n  addr: {host: x}\n", "http.addr"},
		{"number without unit", "http:\n  read_timeout: 30\n", "http.read_timeout"},
		{"float for a count", "store:\n  max_batch: 1.5\n", "store.max_batch"},
		{"map in a list", "uploads:\n  allowed_types: [pdf, {a: b}]\n", "uploads.allowed_types"},
		{"bad prefix in a list", "http:\n  trusted_proxies: [10.0.0.0/8, nowhere]\n", "http.trusted_proxies"},
		{"string for a bool", "uploads:\n  s3:\n    path_style: maybe\n", "uploads.s3.path_style"},
		{"negative size", "uploads:\n  min_free_bytes: -1\n", "uploads.min_free_bytes"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(writeFile(t, tt.yaml))
			mustNameKey(t, err, tt.key)
			for _, leak := range []string{"expected type", "cannot parse", "decoding", "'"} {
				if strings.Contains(err.Error(), leak) {
					t.Errorf("mapstructure's text reached the user: %v", err)
				}
			}
		})
	}
	for _, tt := range []struct{ name, yaml, want string }{
		{"unknown key", "http:\n  adress: x\n", "http.adress (did you mean http.addr?)"},
		{"unknown nested key", "uploads:\n  s3:\n    bucket_name: x\n", "uploads.s3.bucket_name"},
		{"unknown section", "cache:\n  size: 5\n", "cache.size"},
		{"section as a value", "uploads:\n  s3: yes\n", "uploads.s3 is a section"},
		{"not YAML", "http: [\n", "config: file"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(writeFile(t, tt.yaml))
			if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("err = %v; want one line with %q", err, tt.want)
			}
		})
	}
	t.Run("YAML types are fine where they fit", func(t *testing.T) {
		c, err := Load(writeFile(t, "http:\n  max_body_bytes: 1048576\n  trusted_proxies: [10.0.0.0/8]\n"+
			"store:\n  auto_migrate: no\n  max_batch: 10\n  dsn:\nuploads:\n  allowed_types: [pdf, png]\n  sweep_interval: 0\n"))
		if err != nil {
			t.Fatal(err)
		}
		if c.HTTP.MaxBodyBytes != 1<<20 || len(c.HTTP.TrustedProxies) != 1 || c.Store.AutoMigrate || c.Store.MaxBatch != 10 ||
			c.Store.DSN != DefaultSQLitePath || len(c.Uploads.AllowedTypes) != 2 || c.Uploads.SweepInterval != 0 {
			t.Fatalf("%+v", c)
		}
	})
}

func mustNameKey(t *testing.T, err error, key string) {
	t.Helper()
	env := EnvName(key)
	if err == nil || !strings.HasPrefix(err.Error(), "config: "+key+" ("+env+"): ") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("err = %v; want one line starting config: %s (%s): ", err, key, env)
	}
}

func writeFile(t *testing.T, text string) string {
	t.Helper()
	t.Chdir(t.TempDir())
	f := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(f, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

func TestByteSize(t *testing.T) {
	for _, tt := range []struct {
		in   any
		want ByteSize
		text string
	}{
		{"32MiB", 32 << 20, "32MiB"}, {"1 GiB", 1 << 30, "1GiB"}, {"1536", 1536, "1536"}, {"3KiB", 3 << 10, "3KiB"},
		{1024, 1024, "1KiB"}, {"0", 0, "0"}, {"", 0, ""}, {"1.5MiB", 0, ""}, {"5MB", 0, ""}, {"-1", 0, ""},
	} {
		got, err := parseSize(tt.in)
		if tt.text == "" {
			if err == nil {
				t.Errorf("parseSize(%v) = %v, want an error", tt.in, got)
			}
			continue
		}
		if err != nil || got != tt.want || got.(ByteSize).String() != tt.text {
			t.Errorf("parseSize(%v) = %v, %v; want %d (%s)", tt.in, got, err, tt.want, tt.text)
		}
	}
}

// TestRetentionSettings: periods may be written in days; a quarantine
// shorter than a day and a report retention shorter than the time a
// retry's answer names its report are refused, naming the key.
func TestRetentionSettings(t *testing.T) {
	for in, want := range map[string]time.Duration{"30d": 30 * 24 * time.Hour, "0": 0, "720h": 720 * time.Hour, "1825d": 1825 * 24 * time.Hour} {
		if got, err := ParseDuration(in); err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"d", "-1d", "1.5d", "30 d", "99999999999999d"} {
		if _, err := ParseDuration(bad); err == nil {
			t.Errorf("ParseDuration(%q) accepted", bad)
		}
	}
	c := Defaults()
	if c.Uploads.QuarantineRetention != 30*24*time.Hour || c.Retention.Reports != 0 {
		t.Fatalf("defaults: quarantine %s, reports %s", c.Uploads.QuarantineRetention, c.Retention.Reports)
	}
	// retention.reports below idempotency.ttl is the purge's refusal
	// (ports.CheckRetention), which config check asks:
	// TestConfigCheckAsksTheAdapters.
	for env, key := range map[string]string{
		"DISB_UPLOADS_QUARANTINE_RETENTION=23h": "uploads.quarantine_retention",
	} {
		t.Run(key, func(t *testing.T) {
			t.Chdir(t.TempDir())
			k, v, _ := strings.Cut(env, "=")
			t.Setenv(k, v)
			if _, err := Load(""); err == nil || !strings.Contains(err.Error(), key) {
				t.Fatalf("%s: %v, want an error naming %s", env, err, key)
			}
		})
	}
}
