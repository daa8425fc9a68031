package docs

import (
	"fmt"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/lender/disbursementd/cmd/disbursementd/app"
)

// codeProperties are the properties that carry a code for machines: the
// legacy and /v1 answers' code, OAuth's error, a field problem's code, a
// decision's reason_code.
var codeProperties = []string{"code", "error", "reason_code"}

// TestOpenAPICodesAreOpen: issue 36. The guide promises new codes, and a
// generated client rejects a value outside a closed enum: no code
// property of the served document has an enum (or a const); the codes of
// today are listed in x-extensible-enum or the description, which says
// the list is open.
func TestOpenAPICodesAreOpen(t *testing.T) {
	var doc map[string]any
	if err := yaml.Unmarshal(app.OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			if props, ok := v["properties"].(map[string]any); ok {
				for _, name := range codeProperties {
					p, ok := props[name].(map[string]any)
					if !ok {
						continue
					}
					if p["enum"] != nil || p["const"] != nil {
						t.Errorf("%s.properties.%s: a closed enum or const %v; use x-extensible-enum and say the list is open", path, name, p["enum"])
					}
					desc, _ := p["description"].(string)
					if p["x-extensible-enum"] != nil && !strings.Contains(desc, "open") {
						t.Errorf("%s.properties.%s: x-extensible-enum without a description saying the list is open", path, name)
					}
				}
			}
			for k, c := range v {
				walk(path+"."+k, c)
			}
		case []any:
			for i, c := range v {
				walk(fmt.Sprintf("%s[%d]", path, i), c)
			}
		}
	}
	walk("", doc)
}
