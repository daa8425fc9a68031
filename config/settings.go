package config

import (
	"fmt"
	"net/netip"
	"reflect"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/lender/disbursementd/domain"
)

// Setting is one key as the Config struct's tags declare it.
type Setting struct {
	Key     string // "uploads.s3.bucket"
	Env     string // "DISB_UPLOADS_S3_BUCKET"
	Default string // as written in the YAML file: "32MiB", "30s", ""
	Doc     string // one line
	Redact  string // "" (shown), "secret" (***), "dsn" (password hidden), "url" (password hidden)
	// FileEnv is DISB_<SECTION>_<KEY>_FILE for a secret setting (Redact
	// set): its value may be read from that file instead. "" otherwise.
	FileEnv string

	index []int        // field path from Config
	typ   reflect.Type // field type: one of leafTypes
}

// section is a struct field of Config (or of a section): a YAML mapping.
type section struct {
	key string // "uploads.s3"
	doc string
}

// leafTypes are the field types a setting may have; each has a parser in
// decode.go. Any other struct type is a section.
var leafTypes = map[reflect.Type]bool{
	reflect.TypeFor[string]():               true,
	reflect.TypeFor[int]():                  true,
	reflect.TypeFor[bool]():                 true,
	reflect.TypeFor[time.Duration]():        true,
	reflect.TypeFor[ByteSize]():             true,
	reflect.TypeFor[[]string]():             true,
	reflect.TypeFor[[]netip.Prefix]():       true,
	reflect.TypeFor[domain.RetrySchedule](): true,
}

// Redaction kinds of the redact tag.
const (
	redactSecret = "secret"
	redactDSN    = "dsn"
	redactURL    = "url"
)

// declared walks Config's tags once. A malformed tag is a programming
// error, so it panics (and every test of this package fails on it).
var declared = sync.OnceValues(func() ([]Setting, []section) {
	var (
		settings []Setting
		sections []section
	)
	var walk func(t reflect.Type, prefix string, index []int)
	walk = func(t reflect.Type, prefix string, index []int) {
		for i := range t.NumField() {
			f := t.Field(i)
			name := f.Tag.Get("mapstructure")
			if name == "-" {
				continue
			}
			if name == "" || strings.ContainsAny(name, ". ") || name != strings.ToLower(name) {
				panic(fmt.Sprintf("config: field %s.%s: mapstructure tag %q must be a lower-case key", t.Name(), f.Name, name))
			}
			key := prefix + name
			path := append(append([]int(nil), index...), i)
			if !leafTypes[f.Type] {
				if f.Type.Kind() != reflect.Struct {
					panic(fmt.Sprintf("config: %s: unsupported type %s (add a parser in decode.go)", key, f.Type))
				}
				sections = append(sections, section{key: key, doc: f.Tag.Get("doc")})
				walk(f.Type, key+".", path)
				continue
			}
			def, ok := f.Tag.Lookup("default")
			doc := f.Tag.Get("doc")
			if !ok || doc == "" || strings.Contains(doc, "\n") {
				panic(fmt.Sprintf("config: %s: needs a default tag and a one-line doc tag", key))
			}
			red := f.Tag.Get("redact")
			switch red {
			case "", redactSecret, redactDSN, redactURL:
			default:
				panic(fmt.Sprintf("config: %s: redact tag %q, want secret, dsn or url", key, red))
			}
			fileEnv := ""
			if red != "" {
				fileEnv = EnvName(key) + fileSuffix
			}
			settings = append(settings, Setting{Key: key, Env: EnvName(key), FileEnv: fileEnv, Default: def, Doc: doc, Redact: red, index: path, typ: f.Type})
		}
	}
	walk(reflect.TypeFor[Config](), "", nil)
	return settings, sections
})

// Settings returns every setting in the order of the Config struct (the
// order of the example file).
func Settings() []Setting {
	s, _ := declared()
	return append([]Setting(nil), s...)
}

// Keys returns every configuration key, sorted.
func Keys() []string {
	s, _ := declared()
	out := make([]string, 0, len(s))
	for _, x := range s {
		out = append(out, x.Key)
	}
	sort.Strings(out)
	return out
}

// lookup finds the setting of a key.
func lookup(key string) (Setting, bool) {
	s, _ := declared()
	for _, x := range s {
		if x.Key == key {
			return x, true
		}
	}
	return Setting{}, false
}

// isSection tells whether key names a section rather than a setting.
func isSection(key string) bool {
	_, secs := declared()
	for _, s := range secs {
		if s.key == key {
			return true
		}
	}
	return false
}

// EnvName is the environment variable of a key: DISB_HTTP_ADDR,
// DISB_UPLOADS_S3_ENDPOINT.
func EnvName(key string) string {
	return "DISB_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

// field is the value of a setting within c.
func (s Setting) field(c *Config) reflect.Value {
	return reflect.ValueOf(c).Elem().FieldByIndex(s.index)
}
