package test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/lender/disbursementd/domain"
)

var updateOpenAPI = flag.Bool("update-openapi", false, "rewrite the part of openapi.yaml generated from domain/fields.csv")

// The generated part of the Report schema lies between these lines.
const (
	genBegin = "      # BEGIN generated from domain/fields.csv: go test ./test -run TestOpenAPIReportSchema -update-openapi\n"
	genEnd   = "      # END generated\n"
)

var openAPIFile = filepath.Join("..", "cmd", "disbursementd", "app", "openapi.yaml")

// TestOpenAPIReportSchema fails when the Report schema in openapi.yaml and
// the field catalogue disagree: the required list and the 92 properties
// (plus the internal-name form of the file) are generated from
// domain/fields.csv, and -update-openapi writes them.
func TestOpenAPIReportSchema(t *testing.T) {
	doc, err := os.ReadFile(openAPIFile)
	if err != nil {
		t.Fatal(err)
	}
	i, j := bytes.Index(doc, []byte(genBegin)), bytes.Index(doc, []byte(genEnd))
	if i < 0 || j < i {
		t.Fatalf("openapi.yaml lacks the lines %q and %q around the generated part", genBegin, genEnd)
	}
	want, err := reportFieldsYAML(domain.DefaultCatalogue())
	if err != nil {
		t.Fatal(err)
	}
	if got := doc[i+len(genBegin) : j]; !bytes.Equal(got, want) {
		if !*updateOpenAPI {
			t.Fatalf("the Report schema in openapi.yaml is not what domain/fields.csv makes; run\n\tgo test ./test -run TestOpenAPIReportSchema -update-openapi\nfirst difference: %s", firstLineDiff(got, want))
		}
		out := append(append(append([]byte{}, doc[:i+len(genBegin)]...), want...), doc[j:]...)
		if err := os.WriteFile(openAPIFile, out, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Log("openapi.yaml updated; rebuild to embed it")
	}
}

// reportFieldsYAML renders the Report schema's required list and
// properties, indented to sit under components.schemas.Report.
func reportFieldsYAML(cat *domain.Catalogue) ([]byte, error) {
	var required []any
	var props []any
	for _, f := range cat.Fields {
		if f.Required {
			required = append(required, f.Partner)
		}
		props = append(props, f.Partner, fieldSchema(f))
	}
	// The file object is the one field whose internal name is documented
	// too: without it, {"documento_soporte": {...}} would skip its schema.
	file, ok := cat.ByInternal("documento_soporte")
	if !ok {
		return nil, fmt.Errorf("fields.csv has no documento_soporte")
	}
	internal := fieldSchema(file)
	internal.Content[1].Value = "`" + file.Partner + "` under its internal name: the same field, so send one or the other. " + fieldText(file)
	props = append(props, file.Internal, internal)
	root := yamlMap(false, "required", yamlSeq(false, required...), "properties", yamlMap(false, props...))
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	for _, line := range strings.SplitAfter(b.String(), "\n") {
		if line != "" {
			out.WriteString("      " + line)
		}
	}
	return out.Bytes(), nil
}

// fieldSchema is one field's property: its description, and its type's
// schema, which also takes null and "" (absent) when the field is optional.
func fieldSchema(f domain.Field) *yaml.Node {
	desc := "Internal name `" + f.Internal + "`. " + fieldText(f)
	if f.Required {
		desc = "Required. " + desc
	}
	if f.Type == domain.TypeString {
		// null is absent, and a blank string is within maxLength; a
		// required one needs something besides spaces.
		if f.Required {
			return yamlMap(false, "description", desc, "type", "string", "maxLength", f.Max, "pattern", `\S`)
		}
		return yamlMap(false, "description", desc, "type", yamlSeq(true, "string", "null"), "maxLength", f.Max)
	}
	alts := typeSchemas(f)
	if !f.Required {
		alts = append(alts, schemaRef("Blank"))
	}
	if len(alts) == 1 {
		return yamlMap(false, append([]any{"description", desc}, alts[0].pairs...)...)
	}
	items := make([]any, len(alts))
	for i, a := range alts {
		items[i] = yamlMap(true, a.pairs...)
	}
	return yamlMap(false, "description", desc, "anyOf", yamlSeq(false, items...))
}

// schemaPairs is one schema as key, value pairs.
type schemaPairs struct{ pairs []any }

func schemaRef(name string) schemaPairs {
	return schemaPairs{[]any{"$ref", "#/components/schemas/" + name}}
}

// typeSchemas returns the schemas a present value of f may match (anyOf).
func typeSchemas(f domain.Field) []schemaPairs {
	switch f.Type {
	case domain.TypeEmail:
		return []schemaPairs{{[]any{"type", "string", "maxLength", f.Max, "pattern", `^\s*[^\s@]+@[^\s@]+\.[^\s@]+\s*$`}}}
	case domain.TypeEnum:
		values := f.Enum
		if f.Internal == "tipo_identificacion" {
			codes := dianCodes()
			var nums []any
			for _, c := range codes {
				n, _ := strconv.Atoi(c)
				nums = append(nums, n)
			}
			return []schemaPairs{
				{[]any{"type", "string", "pattern", anyCasePattern(append(append([]string{}, values...), codes...))}},
				{[]any{"type", "integer", "enum", yamlSeq(true, nums...)}},
			}
		}
		return []schemaPairs{{[]any{"type", "string", "pattern", anyCasePattern(values)}}}
	case domain.TypeInteger:
		return []schemaPairs{
			{[]any{"type", "integer", "minimum", f.RangeMin, "maximum", f.RangeMax}},
			{[]any{"type", "string", "pattern", `^\s*-?[0-9]{1,18}\s*$`}},
		}
	case domain.TypeMoney:
		if f.Positive {
			return []schemaPairs{schemaRef("PositiveMoney")}
		}
		return []schemaPairs{schemaRef("Money")}
	}
	name := map[domain.FieldType]string{
		domain.TypeNIT: "Nit", domain.TypeIdentification: "Identification", domain.TypeDate: "Date",
		domain.TypeDANE: "DaneCode", domain.TypePhone: "Phone", domain.TypeBoolean: "Flag",
		domain.TypeRate: "Rate", domain.TypeCreditNumber: "CreditNumber", domain.TypeFile: "FileDto",
	}[f.Type]
	return []schemaPairs{schemaRef(name)}
}

// fieldText says in words what a field takes.
func fieldText(f domain.Field) string {
	switch f.Type {
	case domain.TypeString:
		return "Text, at most " + strconv.Itoa(f.Max) + " characters."
	case domain.TypeEmail:
		return "An e-mail address, at most " + strconv.Itoa(f.Max) + " characters."
	case domain.TypeEnum:
		s := "One of " + strings.Join(f.Enum, ", ") + " (any case; stored upper-case)."
		if f.Internal == "tipo_identificacion" {
			s += " The DIAN codes are accepted too, as numbers or strings, and stored as the letters: " + dianText() + "."
		}
		return s
	case domain.TypeInteger:
		return fmt.Sprintf("An integer from %d to %d, as a JSON number or a digit string.", f.RangeMin, f.RangeMax)
	case domain.TypePhone:
		return fmt.Sprintf("A phone number of %d to %d digits, stored as digits only.", f.RangeMin, f.RangeMax)
	case domain.TypeMoney:
		switch {
		case f.LessEq != "":
			ref, _ := domain.DefaultCatalogue().ByInternal(f.LessEq)
			return "Money, greater than 0 and not more than `" + ref.Partner + "`."
		case f.Positive:
			return "Money, greater than 0."
		}
		return "Money, 0 or more."
	case domain.TypeDate:
		switch {
		case f.NotBefore != "":
			ref, _ := domain.DefaultCatalogue().ByInternal(f.NotBefore)
			return "A date, not before `" + ref.Partner + "`."
		case f.HasAhead:
			return fmt.Sprintf("A date, at most %d day(s) after today (UTC).", f.MaxDaysAhead)
		}
		return "A date."
	case domain.TypeCreditNumber:
		return "The credit number: 1 to 30 of A-Z, a-z, 0-9 and `-`. It names the saved file."
	case domain.TypeIdentification:
		return "The client's identification, per `Tipo de identificación`."
	case domain.TypeFile:
		return "The supporting document."
	}
	return map[domain.FieldType]string{
		domain.TypeNIT: "A NIT.", domain.TypeDANE: "A DANE city code.",
		domain.TypeBoolean: "Yes or no.", domain.TypeRate: "A percentage.",
	}[f.Type]
}

// dianCodes are the DIAN numeric identification codes, in order.
func dianCodes() []string {
	return []string{"11", "12", "13", "22", "31", "41", "47", "48", "91"}
}

func dianText() string {
	letters := map[string]string{"11": "RC", "12": "TI", "13": "CC", "22": "CE", "31": "NIT", "41": "PA", "47": "PEP", "48": "PPT", "91": "NUIP"}
	var parts []string
	for _, c := range dianCodes() {
		parts = append(parts, c+" "+letters[c])
	}
	return strings.Join(parts, ", ")
}

// anyCasePattern matches one of values in any case, spaces around allowed
// (JSON Schema patterns have no case-insensitive flag).
func anyCasePattern(values []string) string {
	alts := make([]string, len(values))
	for i, v := range values {
		var b strings.Builder
		for _, r := range v {
			up, lo := unicode.ToUpper(r), unicode.ToLower(r)
			if up != lo {
				b.WriteString("[" + string(up) + string(lo) + "]")
			} else {
				b.WriteString(regexp.QuoteMeta(string(r)))
			}
		}
		alts[i] = b.String()
	}
	return `^\s*(` + strings.Join(alts, "|") + `)\s*$`
}

// mapping builds a YAML mapping from alternating keys and values.
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
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(x)}
	case int64:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(x, 10)}
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
