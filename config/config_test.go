package config

import (
	"os"
	"path/filepath"
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
	t.Setenv("DISB_UPLOADS_ALLOWED_TYPES", "pdf, png")
	t.Setenv("DISB_LOGIN_URL", "https://login.example/auth/login")
	t.Setenv("DISB_AUTH_PRIVATE_KEY_FILE", "/keys/private.pem")
	t.Setenv("DISB_AUTH_PUBLIC_KEYS_FILE", "/keys/trusted.pem")
	t.Setenv("DISB_AUTH_LEEWAY", "30s")
	t.Setenv("DISB_IDEMPOTENCY_WAIT", "5s")
	t.Setenv("DISB_STORE_AUTO_MIGRATE", "false")
	t.Setenv("DISB_HTTP_MAX_BODY_BYTES", "8MiB")
	c, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if c.HTTP.Addr != "0.0.0.0:9100" || c.Store.Driver != "mysql" || c.Store.DSN != "u:secret@tcp(db:3306)/disb" ||
		c.Uploads.Dir != "/srv/uploads" || strings.Join(c.Uploads.AllowedTypes, ",") != "pdf,png" ||
		c.Login.URL != "https://login.example/auth/login" || c.Auth.PrivateKeyFile != "/keys/private.pem" || c.GenerateKeys ||
		c.Auth.PublicKeysFile != "/keys/trusted.pem" || c.Auth.Leeway != 30*time.Second ||
		c.Idempotency.Wait != 5*time.Second || c.Store.AutoMigrate || c.HTTP.MaxBodyBytes != 8<<20 {
		t.Fatalf("env not applied: %+v", c)
	}
	if got := c.Redacted()["store.dsn"]; got != "u:***@tcp(db:3306)/disb" {
		t.Errorf("redacted dsn = %v", got)
	}
	// Every key has an environment variable that Load reads.
	for _, k := range Keys() {
		if !strings.HasPrefix(EnvName(k), "DISB_") {
			t.Errorf("key %s has env %s", k, EnvName(k))
		}
	}
}

func TestConfigErrorsNameTheKey(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, tt := range []struct {
		env, val, key string
	}{
		{"DISB_HTTP_ADDR", "nonsense", "http.addr"},
		{"DISB_HTTP_READ_TIMEOUT", "soon", "http.read_timeout"},
		{"DISB_STORE_DRIVER", "postgres", "store.driver"},
		{"DISB_STORE_AUTO_MIGRATE", "perhaps", "store.auto_migrate"},
		{"DISB_UPLOADS_MAX_FILE_BYTES", "-5", "uploads.max_file_bytes"},
		{"DISB_UPLOADS_ALLOWED_TYPES", "pdf,exe", "uploads.allowed_types"},
		{"DISB_AUTH_TOKEN_TTL", "48h", "auth.token_ttl"},
		{"DISB_LOGIN_URL", "ftp://x", "login.url"},
		{"DISB_IDEMPOTENCY_TTL", "1h", "idempotency.ttl"},
		{"DISB_LOG_FORMAT", "xml", "log.format"},
	} {
		t.Run(tt.key, func(t *testing.T) {
			t.Setenv(tt.env, tt.val)
			_, err := Load("")
			if err == nil || !strings.Contains(err.Error(), tt.key) || !strings.Contains(err.Error(), tt.env) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("Load with %s=%s: %v; want one line naming %s and %s", tt.env, tt.val, err, tt.key, tt.env)
			}
		})
	}
	t.Run("mysql without dsn", func(t *testing.T) {
		t.Setenv("DISB_STORE_DRIVER", "mysql")
		if _, err := Load(""); err == nil || !strings.Contains(err.Error(), "store.dsn") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("unknown key in file", func(t *testing.T) {
		f := filepath.Join(t.TempDir(), "c.yaml")
		_ = os.WriteFile(f, []byte("http:\n  adress: x\n"), 0o600)
		if _, err := Load(f); err == nil || !strings.Contains(err.Error(), "http.adress") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("missing explicit file", func(t *testing.T) {
		if _, err := Load(filepath.Join(t.TempDir(), "nope.yaml")); err == nil {
			t.Fatal("missing --config file accepted")
		}
	})
}

// TestExampleFileDocumentsEveryKey keeps disbursementd.example.yaml in step
// with the keys: it loads cleanly (no unknown key) to the defaults, and
// names every key.
var exampleFile, _ = filepath.Abs("../disbursementd.example.yaml")

func examplePath(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat(exampleFile); err != nil {
		t.Fatal(err)
	}
	return exampleFile
}

func TestExampleFileDocumentsEveryKey(t *testing.T) {
	t.Chdir(t.TempDir())
	c, err := Load(examplePath(t))
	if err != nil {
		t.Fatal(err)
	}
	if c.HTTP.Addr != Defaults().HTTP.Addr || c.Uploads.MaxFileBytes != Defaults().Uploads.MaxFileBytes {
		t.Errorf("example file does not hold the defaults: %+v", c)
	}
	data, _ := os.ReadFile(examplePath(t))
	for _, k := range Keys() {
		section, key, _ := strings.Cut(k, ".")
		if !strings.Contains(string(data), section+":") || !strings.Contains(string(data), "  "+key+":") {
			t.Errorf("example file lacks %s", k)
		}
	}
}
