package config

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

var (
	update     = flag.Bool("update", false, "rewrite ../disbursementd.example.yaml from the tags of Config")
	printTable = flag.Bool("table", false, "print the README's key table (go test ./config/ -run TestMarkdownTable -v -table)")
)

// exampleFile is absolute: tests move into temporary directories.
var exampleFile, _ = filepath.Abs("../disbursementd.example.yaml")

// TestExampleFileIsRenderedFromTheTags holds disbursementd.example.yaml to
// ExampleYAML(), so the file cannot drift from the settings.
func TestExampleFileIsRenderedFromTheTags(t *testing.T) {
	want := ExampleYAML()
	if *update {
		if err := os.WriteFile(exampleFile, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(exampleFile)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("disbursementd.example.yaml differs from config.ExampleYAML() (first difference at line %d).\n"+
			"Change the tags in config/config.go, not the file, then run:\n\tgo test ./config/ -run TestExampleFile -update",
			firstDiffLine(string(got), want))
	}
}

func firstDiffLine(a, b string) int {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return i + 1
		}
	}
	return min(len(al), len(bl)) + 1
}

func TestExampleFileLoadsToTheDefaults(t *testing.T) {
	t.Chdir(t.TempDir())
	c, err := Load(exampleFile)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c, Defaults()) {
		t.Errorf("the example file loads to\n%+v\nnot the defaults\n%+v", c, Defaults())
	}
	data, _ := os.ReadFile(exampleFile)
	for _, k := range Keys() {
		section, key := splitKey(k)
		indent := strings.Repeat("  ", strings.Count(section, ".")+1)
		if !strings.Contains(string(data), indent+key+":") {
			t.Errorf("example file lacks %s", k)
		}
	}
}

func TestTags(t *testing.T) {
	settings := Settings()
	keys := Keys()
	if len(settings) != len(keys) || !slices.IsSorted(keys) || len(slices.Compact(slices.Clone(keys))) != len(keys) {
		t.Fatalf("Keys() = %v", keys)
	}
	envs := map[string]string{}
	for _, s := range settings {
		if other, ok := envs[s.Env]; ok {
			t.Errorf("%s and %s share the variable %s", s.Key, other, s.Env)
		}
		envs[s.Env] = s.Key
		if s.Env != EnvName(s.Key) || !strings.HasPrefix(s.Env, "DISB_") {
			t.Errorf("%s: env %s", s.Key, s.Env)
		}
		if _, err := parsers[s.typ](s.Default); err != nil {
			t.Errorf("%s: default %q: %v", s.Key, s.Default, err)
		}
	}
	for _, k := range []string{
		"http.max_in_flight", "http.max_members", "http.max_problems", "store.max_batch", "store.batch_writers",
		"uploads.backend", "uploads.s3.endpoint", "uploads.s3.bucket", "uploads.s3.prefix", "uploads.s3.region",
		"uploads.s3.path_style", "uploads.s3.access_key_id", "uploads.s3.secret_access_key", "uploads.min_free_bytes",
		"uploads.sweep_interval", "uploads.allow_pdf_scripts", "uploads.max_image_pixels", "auth.max_concurrent_hashes",
		"auth.hash_wait", "auth.user_cache_size", "throttle.backend", "throttle.max_entries", "idempotency.sweep_batch",
		"debug.pprof_addr",
	} {
		if _, ok := lookup(k); !ok {
			t.Errorf("no key %s", k)
		}
	}
}

// constrained holds valid non-default values for the keys whose values
// finish() checks beyond their type; every other key gets one made from
// its type and default by sample.
var constrained = map[string]string{
	"http.addr":                     "0.0.0.0:9999",
	"http.trusted_proxies":          "10.1.0.0/16, 192.0.2.1",
	"store.driver":                  "mysql",
	"store.dsn":                     "u:pw@tcp(db:3306)/x",
	"uploads.backend":               "s3",
	"uploads.allowed_types":         "png",
	"uploads.s3.endpoint":           "https://minio.example:9000",
	"login.url":                     "https://login.example/auth/login",
	"throttle.backend":              "database",
	"log.format":                    "json",
	"log.level":                     "debug",
	"debug.pprof_addr":              "127.0.0.1:6060",
	"http.metrics_addr":             "127.0.0.1:9090",
	"auth.token_ttl":                "12h",
	"retention.reports":             "1825d",
	"store.tls_ca_file":             testdataPath("store-ca.pem"), // a CA certificate only, no key
	"store.tls_server_name":         "db.internal",
	"webhooks.allow_insecure_hosts": "receiver.internal,127.0.0.1,::1",
	"webhooks.retry_schedule":       "0s,1m,1h",
	"webhooks.workers_per_partner":  "5", // from workers_per_endpoint (3 in the sample) to workers (17)
}

// testdataPath is testdata/name as an absolute path: the tests that
// load it change directory.
func testdataPath(name string) string {
	p, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		panic(err)
	}
	return p
}

// sample is a valid value for s other than its default, as text.
func sample(s Setting) string {
	if v, ok := constrained[s.Key]; ok {
		return v
	}
	def, err := parsers[s.typ](s.Default)
	if err != nil {
		panic(err)
	}
	switch d := def.(type) {
	case string:
		return "sample-" + s.Key
	case int:
		return strconv.Itoa(d + 1)
	case bool:
		return strconv.FormatBool(!d)
	case time.Duration:
		return (d + time.Second).String()
	case ByteSize:
		return (d + 1<<10).String()
	}
	panic(fmt.Sprintf("%s: no sample for %T (add one to constrained)", s.Key, def))
}

// TestEveryKeyIsSettable sets every key at once, from the environment and
// then from a file, to a value other than its default, and finds each one
// in its field. The table is built from Settings(): a new key is covered
// without a line here.
func TestEveryKeyIsSettable(t *testing.T) {
	for k := range constrained {
		if _, ok := lookup(k); !ok {
			t.Fatalf("constrained names %s, which is no key", k)
		}
	}
	want := map[string]any{}
	tree := map[string]any{}
	for _, s := range Settings() {
		v, err := parsers[s.typ](sample(s))
		if err != nil {
			t.Fatalf("%s: sample %q: %v", s.Key, sample(s), err)
		}
		want[s.Key] = v
		node := tree
		parts := strings.Split(s.Key, ".")
		for _, p := range parts[:len(parts)-1] {
			if node[p] == nil {
				node[p] = map[string]any{}
			}
			node = node[p].(map[string]any)
		}
		node[parts[len(parts)-1]] = sample(s)
	}
	check := func(t *testing.T, c *Config) {
		t.Helper()
		def := Defaults()
		for _, s := range Settings() {
			got := s.field(c).Interface()
			if !reflect.DeepEqual(got, want[s.Key]) {
				t.Errorf("%s = %#v, want %#v", s.Key, got, want[s.Key])
			}
			if reflect.DeepEqual(got, s.field(def).Interface()) {
				t.Errorf("%s: the sample is the default; the test proves nothing", s.Key)
			}
		}
	}
	t.Run("env", func(t *testing.T) {
		t.Chdir(t.TempDir())
		for _, s := range Settings() {
			t.Setenv(s.Env, sample(s))
		}
		c, err := Load("")
		if err != nil {
			t.Fatal(err)
		}
		check(t, c)
	})
	t.Run("file", func(t *testing.T) {
		text, err := yaml.Marshal(tree)
		if err != nil {
			t.Fatal(err)
		}
		c, err := Load(writeFile(t, string(text)))
		if err != nil {
			t.Fatal(err)
		}
		check(t, c)
	})
}

// TestEveryBadValueNamesItsKey gives every key that is not free text a
// value of no type, and wants one line naming that key and its variable.
func TestEveryBadValueNamesItsKey(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, s := range Settings() {
		if s.typ == reflect.TypeFor[string]() {
			continue // free text; the choices among them are in TestConfigErrorsNameTheKey
		}
		t.Run(s.Key, func(t *testing.T) {
			t.Setenv(s.Env, "not a value!")
			_, err := Load("")
			mustNameKey(t, err, s.Key)
		})
	}
}

// TestConfigErrorsMaskCredentials: a refused URL setting is named in
// its error with its password masked (contract §7, "No credentials in
// logs or errors").
func TestConfigErrorsMaskCredentials(t *testing.T) {
	const secret = "hunter2-sekrit"
	t.Chdir(t.TempDir())
	for env, v := range map[string]string{
		"DISB_UPLOADS_S3_ENDPOINT": "minio://ak:" + secret + "@minio:9000",
		"DISB_LOGIN_URL":           "ftp://partner:" + secret + "@login.example/",
	} {
		t.Run(env, func(t *testing.T) {
			t.Setenv(env, v)
			_, err := Load("")
			if err == nil || strings.Contains(err.Error(), secret) || !strings.Contains(err.Error(), ":***@") {
				t.Fatalf("error %v: want the URL named with its password masked", err)
			}
		})
	}
}

func TestRedactedCoversEveryKey(t *testing.T) {
	const secret = "hunter2-sekrit"
	c := Defaults()
	c.Store.DSN = "disb:" + secret + "@tcp(db:3306)/disb"
	c.Login.URL = "https://partner:" + secret + "@login.example/auth/login"
	c.Uploads.S3.Endpoint = "http://minio:" + secret + "@minio.example:9000"
	for _, s := range Settings() {
		if s.Redact == redactSecret {
			s.field(c).SetString(secret)
		}
	}
	r := c.Redacted()
	if got, want := len(r), len(Keys()); got != want {
		t.Errorf("Redacted has %d keys, want %d", got, want)
	}
	for _, k := range Keys() {
		v, ok := r[k]
		if !ok {
			t.Errorf("Redacted lacks %s", k)
		}
		if strings.Contains(fmt.Sprint(v), secret) {
			t.Errorf("Redacted shows the secret in %s: %v", k, v)
		}
	}
	if r["uploads.s3.secret_access_key"] != "***" || r["store.dsn"] != "disb:***@tcp(db:3306)/disb" ||
		r["login.url"] != "https://partner:***@login.example/auth/login" {
		t.Errorf("redacted: %v %v %v", r["uploads.s3.secret_access_key"], r["store.dsn"], r["login.url"])
	}
	// Values read as the file takes them.
	if r["http.max_body_bytes"] != "32MiB" || r["http.read_timeout"] != "1m0s" || r["store.max_open_conns"] != 32 ||
		r["uploads.allowed_types"] != "pdf,png,jpg,tif" || r["store.auto_migrate"] != true || r["uploads.s3.secret_access_key"] == "" {
		t.Errorf("Redacted() = %v", r)
	}
	if Defaults().Redacted()["uploads.s3.secret_access_key"] != "" {
		t.Error("an unset secret shows as empty, so an operator can tell it is unset")
	}
}

// namedErr stands for mapstructure.DecodeError, which translate matches by
// its Name method.
type namedErr struct {
	name string
	err  error
}

func (e *namedErr) Error() string { return "'" + e.name + "' " + e.err.Error() }
func (e *namedErr) Name() string  { return e.name }
func (e *namedErr) Unwrap() error { return e.err }

func TestTranslateKeepsOneLine(t *testing.T) {
	joined := errors.Join(
		&namedErr{"store.max_batch", errors.New("expected type 'int',\ngot unconvertible type 'map'")},
		&namedErr{"http.addr", &badValue{"x"}},
	)
	mustNameKey(t, translate(joined), "store.max_batch")
	if err := translate(errors.Join(&namedErr{"http.read_timeout", &badValue{`"soon" is not a duration like 30s or 5m`}})); err.Error() !=
		`config: http.read_timeout (DISB_HTTP_READ_TIMEOUT): "soon" is not a duration like 30s or 5m` {
		t.Errorf("translate = %v", err)
	}
	if err := translate(errors.New("one\ntwo")); strings.Contains(err.Error(), "\n") {
		t.Errorf("translate = %q", err)
	}
}

func TestMarkdownTableHasEveryKey(t *testing.T) {
	table := MarkdownTable()
	if got, want := strings.Count(table, "\n"), len(Keys())+2; got != want {
		t.Errorf("%d lines, want %d", got, want)
	}
	for _, s := range Settings() {
		if !strings.Contains(table, "| `"+s.Key+"` | `"+s.Env+"` |") {
			t.Errorf("no row for %s", s.Key)
		}
	}
	if *printTable {
		fmt.Print(table)
	}
}
