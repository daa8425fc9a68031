package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnknownEnvNamesTheClosest: a misspelled DISB_* variable fails the
// load, like an unknown YAML key, naming the variable it was meant to
// be; DISB_CONFIG, the _FILE forms of secrets and DISB_TEST_* are not
// refused.
func TestUnknownEnvNamesTheClosest(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, tt := range []struct{ env, want string }{
		{"DISB_HTTP_ADRESS", "DISB_HTTP_ADRESS (did you mean DISB_HTTP_ADDR?)"},
		{"DISB_STORE_DNS", "DISB_STORE_DNS (did you mean DISB_STORE_DSN?)"},
		{"DISB_CONFIG_FILE", "DISB_CONFIG_FILE (did you mean DISB_CONFIG?)"},
		// A path setting has no _FILE form: it is not a secret.
		{"DISB_AUTH_PRIVATE_KEY_FILE_FILE", "DISB_AUTH_PRIVATE_KEY_FILE_FILE (did you mean DISB_AUTH_PRIVATE_KEY_FILE?)"},
		{"DISB_UPLOADS_S3_BUCKET_FILE", "DISB_UPLOADS_S3_BUCKET_FILE (did you mean DISB_UPLOADS_S3_BUCKET?)"},
	} {
		t.Run(tt.env, func(t *testing.T) {
			t.Setenv(tt.env, "x")
			_, err := Load("")
			if err == nil || !strings.Contains(err.Error(), "unknown environment variable "+tt.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("err = %v; want one line naming %s", err, tt.want)
			}
		})
	}
	t.Run("several", func(t *testing.T) {
		t.Setenv("DISB_HTTP_ADRESS", "x")
		t.Setenv("DISB_LOG_LEVL", "debug")
		_, err := Load("")
		if err == nil || !strings.Contains(err.Error(), "DISB_HTTP_ADRESS (did you mean DISB_HTTP_ADDR?), DISB_LOG_LEVL (did you mean DISB_LOG_LEVEL?)") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("not refused", func(t *testing.T) {
		t.Setenv("DISB_TEST_ANYTHING", "x")
		t.Setenv("DISB_HTTP_ADDR", "127.0.0.1:9999")
		t.Setenv("NOT_DISB_HTTP_ADRESS", "x")
		c, err := Load("")
		if err != nil || c.HTTP.Addr != "127.0.0.1:9999" {
			t.Fatalf("Load = %v, %v", c, err)
		}
	})
}

// TestConfigFileFromEnv: DISB_CONFIG names the file when --config does
// not; --config wins; a DISB_CONFIG naming no file is an error, not the
// defaults.
func TestConfigFileFromEnv(t *testing.T) {
	file := writeFile(t, "http:\n  addr: 127.0.0.1:9001\n")
	other := filepath.Join(t.TempDir(), "other.yaml")
	if err := os.WriteFile(other, []byte("http:\n  addr: 127.0.0.1:9002\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvConfigFile, file)
	if c, err := Load(""); err != nil || c.HTTP.Addr != "127.0.0.1:9001" {
		t.Fatalf("DISB_CONFIG: %v %v", c, err)
	}
	if c, err := Load(other); err != nil || c.HTTP.Addr != "127.0.0.1:9002" {
		t.Fatalf("--config beside DISB_CONFIG: %v %v", c, err)
	}
	t.Setenv(EnvConfigFile, filepath.Join(t.TempDir(), "missing.yaml"))
	if _, err := Load(""); err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Fatalf("DISB_CONFIG naming no file: %v", err)
	}
}

// TestSecretFiles: a secret setting reads its value from the file its
// _FILE variable names (one trailing line break dropped); both forms set,
// an empty file or one that cannot be read fail naming the key and the
// variable, and never quote the file's content.
func TestSecretFiles(t *testing.T) {
	t.Chdir(t.TempDir())
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const dsn = "disb:file-secret-1@tcp(db:3306)/disb"
	t.Setenv("DISB_STORE_DRIVER", "mysql")
	t.Setenv("DISB_STORE_DSN_FILE", write("dsn", dsn+"\n"))
	t.Setenv("DISB_UPLOADS_S3_ACCESS_KEY_ID", "AKID")
	t.Setenv("DISB_UPLOADS_S3_SECRET_ACCESS_KEY_FILE", write("s3", "file-secret-2\r\n"))
	// A path setting whose key ends in _file: its own variable, a path.
	t.Setenv("DISB_AUTH_PRIVATE_KEY_FILE", "/keys/private.pem")
	c, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	if c.Store.DSN != dsn || c.Uploads.S3.SecretAccessKey != "file-secret-2" || c.Auth.PrivateKeyFile != "/keys/private.pem" {
		t.Fatalf("dsn %q, s3 secret %q, key file %q", c.Store.DSN, c.Uploads.S3.SecretAccessKey, c.Auth.PrivateKeyFile)
	}
	for _, tt := range []struct {
		name, env, value, want string
	}{
		{"both forms", "DISB_STORE_DSN", dsn, "store.dsn (DISB_STORE_DSN_FILE): both DISB_STORE_DSN and DISB_STORE_DSN_FILE are set"},
		{"empty file", "DISB_STORE_DSN_FILE", write("empty", "\n"), "store.dsn (DISB_STORE_DSN_FILE): " + filepath.Join(dir, "empty") + " is empty"},
		{"no file", "DISB_STORE_DSN_FILE", filepath.Join(dir, "none"), "store.dsn (DISB_STORE_DSN_FILE): open " + filepath.Join(dir, "none")},
		{"too large", "DISB_STORE_DSN_FILE", write("big", strings.Repeat("file-secret-3", maxSecretFile)), "is larger than"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(tt.env, tt.value)
			_, err := Load("")
			if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "file-secret") {
				t.Fatalf("err = %v; want %q and no secret", err, tt.want)
			}
		})
	}
}

// TestFileFormsAreTheSecrets: the settings with a _FILE form are exactly
// the redacted ones, and no _FILE form is another setting's variable
// (a key store.dsn_file would make DISB_STORE_DSN_FILE mean two things).
func TestFileFormsAreTheSecrets(t *testing.T) {
	env := map[string]string{}
	for _, s := range Settings() {
		env[s.Env] = s.Key
	}
	var forms []string
	for _, s := range Settings() {
		if (s.FileEnv != "") != (s.Redact != "") {
			t.Errorf("%s: redact %q but FileEnv %q", s.Key, s.Redact, s.FileEnv)
		}
		if s.FileEnv == "" {
			continue
		}
		forms = append(forms, s.FileEnv)
		if k, ok := env[s.FileEnv]; ok {
			t.Errorf("%s's _FILE form %s is the variable of %s", s.Key, s.FileEnv, k)
		}
	}
	want := "DISB_STORE_DSN_FILE DISB_UPLOADS_S3_ENDPOINT_FILE DISB_UPLOADS_S3_SECRET_ACCESS_KEY_FILE DISB_LOGIN_URL_FILE"
	if got := strings.Join(forms, " "); got != want {
		t.Errorf("_FILE forms %s, want %s (update the operator guide with this list)", got, want)
	}
}

// TestRedactedYAML: config print's text hides every secret and, the
// secrets aside, loads back to the same configuration.
func TestRedactedYAML(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("DISB_UPLOADS_S3_ACCESS_KEY_ID", "AKID")
	t.Setenv("DISB_UPLOADS_S3_SECRET_ACCESS_KEY", "print-secret-1")
	t.Setenv("DISB_LOGIN_URL", "https://u:print-secret-2@login.example/auth")
	t.Setenv("DISB_HTTP_TRUSTED_PROXIES", "10.0.0.0/8")
	c, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	text := c.RedactedYAML()
	if strings.Contains(text, "print-secret") || !strings.Contains(text, `secret_access_key: "***"`) ||
		!strings.Contains(text, `url: "https://u:***@login.example/auth"`) {
		t.Fatalf("RedactedYAML:\n%s", text)
	}
	for _, k := range []string{"DISB_UPLOADS_S3_ACCESS_KEY_ID", "DISB_UPLOADS_S3_SECRET_ACCESS_KEY", "DISB_LOGIN_URL", "DISB_HTTP_TRUSTED_PROXIES"} {
		t.Setenv(k, "")
	}
	def := Defaults()
	back, err := Load(writeFile(t, def.RedactedYAML()))
	if err != nil {
		t.Fatalf("config print's text does not load: %v\n%s", err, def.RedactedYAML())
	}
	if got, want := back.Redacted(), def.Redacted(); !equalMaps(got, want) {
		t.Errorf("loaded back %v, want %v", got, want)
	}
}

func equalMaps(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
