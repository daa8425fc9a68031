package docs

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/lender/disbursementd/domain"
)

var updateOpenAPI = flag.Bool("update-openapi", false, "rewrite the parts of openapi.yaml generated from domain/fields.csv")

var openAPIFile = filepath.Join(root, "cmd", "disbursementd", "app", "openapi.yaml")

// generatedRegion is a part of openapi.yaml made from domain/fields.csv:
// the lines between its BEGIN and END comments, indented by indent.
type generatedRegion struct {
	name   string
	indent string
	body   func(*domain.Catalogue) (*yaml.Node, error)
}

// fieldRegions are the generated parts: the three report schemas' required
// lists and properties, and the named kinds of value they refer to.
var fieldRegions = []generatedRegion{
	{"Report", "      ", v1ReportYAML},
	{"ReportFields", "      ", storedFieldsYAML},
	{"LegacyReport", "      ", legacyReportYAML},
	{"kinds", "    ", fieldKindsYAML},
}

func (r generatedRegion) markers() (begin, end string) {
	return r.indent + "# BEGIN generated " + r.name + " from domain/fields.csv: go test ./test/docs -run TestOpenAPIFieldSchemas -update-openapi\n",
		r.indent + "# END generated " + r.name + "\n"
}

// TestOpenAPIFieldSchemas fails when a part of openapi.yaml that is made
// from the field catalogue differs from what domain/fields.csv makes: the
// v1 report, the stored fields, the legacy report (required lists and
// properties) and the kinds of value they name. -update-openapi writes
// them.
func TestOpenAPIFieldSchemas(t *testing.T) {
	doc, err := os.ReadFile(openAPIFile)
	if err != nil {
		t.Fatal(err)
	}
	cat := domain.DefaultCatalogue()
	changed := false
	for _, r := range fieldRegions {
		begin, end := r.markers()
		i, j := bytes.Index(doc, []byte(begin)), bytes.Index(doc, []byte(end))
		if i < 0 || j < i {
			t.Fatalf("openapi.yaml lacks the lines %q and %q around the generated part", begin, end)
		}
		node, err := r.body(cat)
		if err != nil {
			t.Fatal(err)
		}
		want, err := indentedYAML(node, r.indent)
		if err != nil {
			t.Fatal(err)
		}
		got := doc[i+len(begin) : j]
		if bytes.Equal(got, want) {
			continue
		}
		if !*updateOpenAPI {
			t.Errorf("the %s part of openapi.yaml is not what domain/fields.csv makes; run\n\tgo test ./test/docs -run TestOpenAPIFieldSchemas -update-openapi\nfirst difference: %s", r.name, firstLineDiff(got, want))
			continue
		}
		doc = append(append(append([]byte{}, doc[:i+len(begin)]...), want...), doc[j:]...)
		changed = true
	}
	if changed {
		if err := os.WriteFile(openAPIFile, doc, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Log("openapi.yaml updated; rebuild to embed it")
	}
}

// indentedYAML renders a mapping's entries, each line indented.
func indentedYAML(n *yaml.Node, indent string) ([]byte, error) {
	if len(n.Content) == 0 {
		return nil, nil
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	for _, line := range strings.SplitAfter(b.String(), "\n") {
		if line != "" {
			out.WriteString(indent + line)
		}
	}
	return out.Bytes(), nil
}

// goName is the Go name generators give a field: its internal name in
// CamelCase (`numero_credito` is NumeroCredito). Internal names are ASCII
// and unique, so no two fields of a schema get one name, whatever their
// partner names (`Documento Soporte` and `documento_soporte` both became
// DocumentoSoporte when generators made names from property names).
func goName(internal string) string {
	var b strings.Builder
	for _, part := range strings.Split(internal, "_") {
		if part != "" {
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return b.String()
}

// schemaRef is a reference to a schema of components.schemas.
func schemaRef(name string) []any {
	return []any{"$ref", "#/components/schemas/" + name}
}

// property is one field's property: its description and Go name, then its
// schema's keys.
func property(desc, name string, schema []any) *yaml.Node {
	return yamlMap(false, append([]any{"description", desc, "x-go-name", name}, schema...)...)
}

// requiredAndProperties is the body of a report schema's region: the
// required list, the properties, and x-ogen-properties giving ogen each
// property's x-go-name as its Go field name. ogen reads no x-go-name and
// makes names from property names, so without it `Documento Soporte` and
// `documento_soporte` were one Go field and ogen refused the document.
func requiredAndProperties(required, props []any) *yaml.Node {
	var names []any
	for i := 0; i+1 < len(props); i += 2 {
		names = append(names, props[i], yamlMap(true, "name", goNameOf(props[i+1].(*yaml.Node))))
	}
	body := []any{"properties", yamlMap(false, props...), "x-ogen-properties", yamlMap(false, names...)}
	if len(required) > 0 {
		body = append([]any{"required", yamlSeq(false, required...)}, body...)
	}
	return yamlMap(false, body...)
}

// goNameOf is the x-go-name of a property made by property.
func goNameOf(prop *yaml.Node) string {
	for i := 0; i+1 < len(prop.Content); i += 2 {
		if prop.Content[i].Value == "x-go-name" {
			return prop.Content[i+1].Value
		}
	}
	panic("property without x-go-name")
}

func yamlMap(flow bool, kv ...any) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode}
	if flow {
		n.Style = yaml.FlowStyle
	}
	for i := 0; i+1 < len(kv); i += 2 {
		n.Content = append(n.Content, yamlScalar(kv[i]), yamlScalar(kv[i+1]))
	}
	return n
}

func yamlSeq(flow bool, items ...any) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode}
	if flow {
		n.Style = yaml.FlowStyle
	}
	for _, it := range items {
		n.Content = append(n.Content, yamlScalar(it))
	}
	return n
}

func yamlScalar(v any) *yaml.Node {
	switch x := v.(type) {
	case *yaml.Node:
		return x
	case string:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: x}
	case int:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: fmt.Sprint(x)}
	case int64:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: fmt.Sprint(x)}
	}
	panic(fmt.Sprintf("scalar: %T", v))
}

func firstLineDiff(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("generated line %d\n\thave %q\n\twant %q", i+1, x, y)
		}
	}
	return "none"
}
