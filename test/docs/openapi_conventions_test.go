package docs

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/lender/disbursementd/cmd/disbursementd/app"
	"github.com/lender/disbursementd/domain"
)

// The value patterns of contract §10 (which narrowed §8's): money of 0
// or more, money above 0, and rates of 0 to 100 with up to 4 decimals, as
// canonical decimals (no sign, no spaces, no leading zeros). TestV1SQLite's
// "details: money and rate strings" holds them to what the service takes.
const (
	moneyPattern         = `^(0|[1-9][0-9]{0,15})(\.[0-9]{1,2})?$`
	positiveMoneyPattern = `^([1-9][0-9]{0,15}(\.[0-9]{1,2})?|0\.([1-9][0-9]?|0[1-9]))$`
	ratePattern          = `^((0|[1-9][0-9]?)(\.[0-9]{1,4})?|100(\.0{1,4})?)$`
)

var goIdentifier = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`)

// TestOpenAPIConventions holds the served document to what generators need
// of it (contract §8, docs/decisions.md): a relative server; no OPTIONS
// operations (CORS is described once); the v1 report closed
// (additionalProperties: false), with money and rates as strings of the
// §10 patterns; the token URL of the OAuth scheme; and in every report
// schema, each property a $ref or a plain type (never an inline anyOf,
// which openapi-typescript could not follow under a name with `%`) with an
// ASCII x-go-name unique in its schema (oapi-codegen made one Go name of
// `Documento Soporte` and `documento_soporte`).
func TestOpenAPIConventions(t *testing.T) {
	var doc map[string]any
	if err := yaml.Unmarshal(app.OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	if got := at(doc, "servers"); len(asList(got)) != 1 || at(asList(got)[0], "url") != "/" {
		t.Errorf("servers: %v, want one relative server, /", got)
	}
	for path, item := range asMap(at(doc, "paths")) {
		if at(item, "options") != nil {
			t.Errorf("paths.%s has an OPTIONS operation; CORS is described once, in info and components.responses", path)
		}
	}
	schemas := asMap(at(doc, "components", "schemas"))
	if got := at(schemas, "Report", "additionalProperties"); got != false {
		t.Errorf("Report.additionalProperties: %v, want false", got)
	}
	for name, pattern := range map[string]string{"Money": moneyPattern, "PositiveMoney": positiveMoneyPattern, "Rate": ratePattern} {
		if typ, pat := at(schemas, name, "type"), at(schemas, name, "pattern"); typ != "string" || pat != pattern {
			t.Errorf("%s: type %v pattern %v, want string %s", name, typ, pat, pattern)
		}
	}
	for _, f := range domain.DefaultCatalogue().Fields {
		ref, _ := at(schemas, "Report", "properties", f.Partner, "$ref").(string)
		if (f.Type == domain.TypeMoney || f.Type == domain.TypeRate) && ref != "#/components/schemas/Money" &&
			ref != "#/components/schemas/PositiveMoney" && ref != "#/components/schemas/Rate" {
			t.Errorf("Report.%s is %q, want Money, PositiveMoney or Rate", f.Partner, ref)
		}
	}
	if got := at(doc, "components", "securitySchemes", "partnerOAuth", "flows", "clientCredentials", "tokenUrl"); got != "/v1/token" {
		t.Errorf("partnerOAuth's tokenUrl: %v, want /v1/token", got)
	}
	if got := at(doc, "components", "securitySchemes", "bearerAuth", "scheme"); got != "bearer" {
		t.Errorf("bearerAuth's scheme: %v, want bearer", got)
	}
	for _, name := range []string{"Report", "ReportFields", "LegacyReport"} {
		props := asMap(at(schemas, name, "properties"))
		if len(props) < len(domain.DefaultCatalogue().Fields)-1 {
			t.Errorf("%s has %d properties, want one per field", name, len(props))
		}
		goNames := map[string]string{}
		for prop, s := range props {
			for _, k := range []string{"anyOf", "oneOf", "allOf"} {
				if at(s, k) != nil {
					t.Errorf("%s.%s has an inline %s; name its kind in components.schemas", name, prop, k)
				}
			}
			g, _ := at(s, "x-go-name").(string)
			switch {
			case !goIdentifier.MatchString(g):
				t.Errorf("%s.%s: x-go-name %q is not an ASCII Go name", name, prop, g)
			case goNames[g] != "":
				t.Errorf("%s: %q and %q have one x-go-name, %s", name, goNames[g], prop, g)
			}
			goNames[g] = prop
		}
	}
}

// TestOpenAPIBearerFirst: every /v1 operation that takes a token lists
// bearerAuth as its first security alternative and partnerOAuth after it,
// and /v1/token lists clientBasic first. Tools that use one alternative
// take the first: with partnerOAuth first, the Postman collection had an
// oauth2 auth with no token, which newman sends as no Authorization at
// all (every request 401); with bearerAuth first it sends
// `Bearer {{bearerToken}}` (test/openapi/generators runs it).
func TestOpenAPIBearerFirst(t *testing.T) {
	var doc map[string]any
	if err := yaml.Unmarshal(app.OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	n := 0
	for path, item := range asMap(at(doc, "paths")) {
		if !strings.HasPrefix(path, "/v1/") {
			continue
		}
		for method, op := range asMap(item) {
			var names []string
			for _, req := range asList(at(op, "security")) {
				for name := range asMap(req) {
					names = append(names, name)
				}
			}
			want := []string{"bearerAuth", "partnerOAuth"}
			if path == "/v1/token" {
				want = []string{"clientBasic"} // then {}: form fields or JSON
			}
			n++
			if len(names) < len(want) || !slices.Equal(names[:len(want)], want) {
				t.Errorf("%s %s: security %v, want %v first", method, path, names, want)
			}
		}
	}
	if n < 5 {
		t.Fatalf("only %d /v1 operations: the check would prove nothing", n)
	}
}

// at walks a decoded YAML document by keys; nil when a key is missing.
func at(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}
