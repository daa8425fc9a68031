package docs

import (
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/lender/disbursementd/domain"
)

// v1ReportYAML is the v1 report's required list and properties: every
// field once, by its partner name, each value in the one form a generated
// client should send (money and rates as strings).
func v1ReportYAML(cat *domain.Catalogue) (*yaml.Node, error) {
	var required, props []any
	for _, f := range cat.Fields {
		desc := "Internal name `" + f.Internal + "`. " + fieldText(f)
		if f.Required {
			required = append(required, f.Partner)
			desc = "Required. " + desc
		}
		props = append(props, f.Partner, property(desc, goName(f.Internal), v1Schema(f)))
	}
	return requiredAndProperties(required, props), nil
}

// storedFieldsYAML is the stored fields of GET /v1/reports/{id}: every
// field but the file, in the same kinds as the v1 report (whose patterns
// match the stored forms). The required fields are always stored.
func storedFieldsYAML(cat *domain.Catalogue) (*yaml.Node, error) {
	var required, props []any
	for _, f := range cat.Fields {
		if f.Type == domain.TypeFile {
			continue
		}
		if f.Required {
			required = append(required, f.Partner)
		}
		props = append(props, f.Partner, property("Internal name `"+f.Internal+"`. "+fieldText(f), goName(f.Internal), v1Schema(f)))
	}
	return requiredAndProperties(required, props), nil
}

// v1Schema is a v1 field's schema: text, integers and booleans inline,
// every other kind by reference to a named schema.
func v1Schema(f domain.Field) []any {
	switch f.Type {
	case domain.TypeString:
		if f.Required {
			return []any{"type", "string", "maxLength", f.Max, "pattern", `\S`}
		}
		return []any{"type", "string", "maxLength", f.Max}
	case domain.TypeEmail:
		return []any{"type", "string", "maxLength", f.Max, "pattern", `^[^\s@]+@[^\s@]+\.[^\s@]+$`}
	case domain.TypeInteger:
		return []any{"type", "integer", "minimum", f.RangeMin, "maximum", f.RangeMax}
	case domain.TypeBoolean:
		return []any{"type", "boolean"}
	case domain.TypeEnum:
		return schemaRef(goName(f.Internal))
	case domain.TypeMoney:
		if f.Positive {
			return schemaRef("PositiveMoney")
		}
		return schemaRef("Money")
	}
	return schemaRef(map[domain.FieldType]string{
		domain.TypeNIT: "Nit", domain.TypeIdentification: "Identification", domain.TypeDate: "Date",
		domain.TypeDANE: "DaneCode", domain.TypePhone: "Phone", domain.TypeRate: "Rate",
		domain.TypeCreditNumber: "CreditNumber", domain.TypeFile: "FileDto",
	}[f.Type])
}

// fieldKindsYAML is the named kinds that depend on the catalogue: each
// enumeration's v1 kind (its values, upper-case) and legacy kind, and the
// OrBlank form of every legacy kind an optional field takes (an
// enumeration's too).
func fieldKindsYAML(cat *domain.Catalogue) (*yaml.Node, error) {
	var kinds, orBlank []any
	var seen []string
	for _, f := range cat.Fields {
		if f.Type == domain.TypeEnum {
			values := make([]any, len(f.Enum))
			for i, v := range f.Enum {
				values[i] = v
			}
			desc := "`" + f.Partner + "`: one of " + joinAny(values) + "."
			if f.Internal == "tipo_identificacion" {
				desc += " The service also takes the DIAN codes and stores the letters: " + dianText() + "."
			}
			kinds = append(kinds, goName(f.Internal), yamlMap(false, "description", desc, "type", "string", "enum", yamlSeq(true, values...)),
				"Legacy"+goName(f.Internal), legacyEnumKind(f))
		}
		if f.Type == domain.TypeString || f.Required {
			continue
		}
		name := legacyKindName(f)
		if !slices.Contains(seen, name) {
			seen = append(seen, name)
			orBlank = append(orBlank, name, orBlankKind(name[:len(name)-len("OrBlank")]))
		}
	}
	return yamlMap(false, append(kinds, orBlank...)...), nil
}

func joinAny(values []any) string {
	s := ""
	for i, v := range values {
		if i > 0 {
			s += ", "
		}
		s += v.(string)
	}
	return s
}
