package config

import (
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
)

// exampleHeader opens the example file.
const exampleHeader = `# disbursementd configuration: every key with its default.
# Generated from the tags of config.Config (config/config.go); to change it, change
# them and run: go test ./config/ -run TestExampleFile -update
#
# Each key can also be set by an environment variable DISB_<SECTION>_<KEY>, which
# wins over this file: store.dsn -> DISB_STORE_DSN, uploads.s3.bucket -> DISB_UPLOADS_S3_BUCKET.
# A secret (store.dsn, uploads.s3.endpoint, uploads.s3.secret_access_key, login.url)
# may instead be read from a file: DISB_STORE_DSN_FILE=/run/secrets/dsn. DISB_CONFIG
# names this file when --config is not given; any other DISB_* variable is an error.
# Sizes take bytes or KiB/MiB/GiB; durations take 30s, 5m, 24h; lists take a YAML
# list or a comma-separated string.
`

// commentColumn is where the doc comments of the example file start.
const commentColumn = 32

// ExampleYAML renders the example configuration file from the tags: every
// section and key, with its default and its doc. disbursementd.example.yaml
// is exactly this text (a test holds them together).
func ExampleYAML() string {
	return renderYAML(exampleHeader, func(s Setting) string { return yamlValue(s, s.Default) }, true)
}

// renderYAML writes every setting in the order of the Config struct,
// nested in its sections, with value's text and, withDocs, each doc.
func renderYAML(header string, value func(Setting) string, withDocs bool) string {
	var b strings.Builder
	b.WriteString(header)
	open := ""
	for _, s := range Settings() {
		sec, name := splitKey(s.Key)
		if sec != open {
			openSections(&b, open, sec, withDocs)
			open = sec
		}
		depth := strings.Count(s.Key, ".")
		doc := s.Doc
		if !withDocs {
			doc = ""
		}
		writeLine(&b, strings.Repeat("  ", depth)+name+": "+value(s), doc)
	}
	return b.String()
}

// openSections writes the headers of the sections of next that prev has
// not opened ("uploads" -> "uploads.s3" writes only "s3:").
func openSections(b *strings.Builder, prev, next string, withDocs bool) {
	have := strings.Split(prev, ".")
	parts := strings.Split(next, ".")
	same := 0
	for same < len(have) && same < len(parts) && prev != "" && have[same] == parts[same] {
		same++
	}
	if same == 0 {
		b.WriteString("\n")
	}
	for i := same; i < len(parts); i++ {
		key := strings.Join(parts[:i+1], ".")
		doc := ""
		if withDocs {
			doc = sectionDoc(key)
		}
		writeLine(b, strings.Repeat("  ", i)+parts[i]+":", doc)
	}
}

func sectionDoc(key string) string {
	_, secs := declared()
	for _, s := range secs {
		if s.key == key {
			return s.doc
		}
	}
	return ""
}

func writeLine(b *strings.Builder, text, doc string) {
	b.WriteString(text)
	if doc != "" {
		pad := max(commentColumn-len(text), 2)
		b.WriteString(strings.Repeat(" ", pad) + "# " + doc)
	}
	b.WriteString("\n")
}

func splitKey(key string) (section, name string) {
	i := strings.LastIndex(key, ".")
	return key[:i], key[i+1:]
}

// plainYAML is text that YAML reads back as the same string unquoted.
var plainYAML = regexp.MustCompile(`^[A-Za-z0-9_./][A-Za-z0-9_./:,-]*$`)

// yamlValue is a value d of setting s as YAML: as written, quoted when
// YAML would read it as something else (empty, a number, a bool).
func yamlValue(s Setting, d string) string {
	if d == "" {
		return `""`
	}
	if s.typ == reflect.TypeFor[string]() && !isPlainString(d) {
		return strconv.Quote(d)
	}
	return d
}

func isPlainString(s string) bool {
	if !plainYAML.MatchString(s) || strings.HasSuffix(s, ":") {
		return false
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return false
	}
	switch strings.ToLower(s) {
	case "true", "false", "yes", "no", "on", "off", "y", "n", "null", "~":
		return false
	}
	return true
}

// MarkdownTable renders every setting as a Markdown table (key, env,
// default, meaning) for the README.
func MarkdownTable() string {
	var b strings.Builder
	b.WriteString("| key | env | default | meaning |\n|---|---|---|---|\n")
	for _, s := range Settings() {
		def := "`" + s.Default + "`"
		if s.Default == "" {
			def = "(empty)"
		}
		doc := s.Doc
		switch s.Redact {
		case redactSecret:
			doc += " (secret: logged as ***)"
		case redactDSN, redactURL:
			doc += " (its password is not logged)"
		}
		if s.FileEnv != "" {
			doc += "; or from the file `" + s.FileEnv + "` names"
		}
		fmt.Fprintf(&b, "| `%s` | `%s` | %s | %s |\n", s.Key, s.Env, def, strings.ReplaceAll(doc, "|", `\|`))
	}
	return b.String()
}
