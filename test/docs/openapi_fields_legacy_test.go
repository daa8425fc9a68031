package docs

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/lender/disbursementd/domain"
)

// legacyReportYAML is the legacy report's required list and properties:
// every field by its partner name, plus the file under its internal name.
// An optional field also takes null and "" (absent), through a kind whose
// name ends in OrBlank, so that no property holds an anyOf of its own.
func legacyReportYAML(cat *domain.Catalogue) (*yaml.Node, error) {
	var required, props []any
	for _, f := range cat.Fields {
		if f.Required {
			required = append(required, f.Partner)
		}
		props = append(props, f.Partner, property(legacyDescription(f), goName(f.Internal), legacySchema(f)))
	}
	// The file object is the one field whose internal name is documented
	// too: without it, {"documento_soporte": {...}} would skip its schema.
	file, ok := cat.ByInternal("documento_soporte")
	if !ok {
		return nil, fmt.Errorf("fields.csv has no documento_soporte")
	}
	desc := "`" + file.Partner + "` under its internal name: the same field, so send one or the other. " + fieldText(file)
	props = append(props, file.Internal, property(desc, goName(file.Internal)+"ByInternalName", legacySchema(file)))
	return requiredAndProperties(required, props), nil
}

func legacyDescription(f domain.Field) string {
	desc := "Internal name `" + f.Internal + "`. " + fieldText(f)
	if f.Type == domain.TypeInteger {
		desc = "Internal name `" + f.Internal + "`. " + fmt.Sprintf("An integer from %d to %d, as a JSON number or a digit string.", f.RangeMin, f.RangeMax)
	}
	if f.Required {
		desc = "Required. " + desc
	}
	return desc
}

// legacySchema is a legacy field's schema: text inline (null is absent,
// and a blank string is within maxLength; a required one needs something
// besides spaces), every other kind by reference.
func legacySchema(f domain.Field) []any {
	if f.Type == domain.TypeString {
		if f.Required {
			return []any{"type", "string", "maxLength", f.Max, "pattern", `\S`}
		}
		return []any{"type", yamlSeq(true, "string", "null"), "maxLength", f.Max}
	}
	return schemaRef(legacyKindName(f))
}

// legacyKindName names the kind of value a legacy field takes.
func legacyKindName(f domain.Field) string {
	name := map[domain.FieldType]string{
		domain.TypeEmail: "LegacyEmail", domain.TypeInteger: "LegacyInteger", domain.TypeNIT: "LegacyNit",
		domain.TypeIdentification: "LegacyIdentification", domain.TypeDate: "LegacyDate", domain.TypeDANE: "LegacyDaneCode",
		domain.TypePhone: "LegacyPhone", domain.TypeBoolean: "LegacyFlag", domain.TypeRate: "LegacyRate",
		domain.TypeCreditNumber: "LegacyCreditNumber", domain.TypeFile: "FileDto", domain.TypeMoney: "LegacyMoney",
	}[f.Type]
	if f.Type == domain.TypeEnum {
		name = "Legacy" + goName(f.Internal) // its own kind
	}
	if f.Type == domain.TypeMoney && f.Positive {
		name = "LegacyPositiveMoney"
	}
	if !f.Required {
		name += "OrBlank"
	}
	return name
}

// legacyEnumKind is an enumeration's legacy kind: its values in any case
// (JSON Schema patterns have no case-insensitive flag) and the DIAN codes
// for the identification type. An optional one takes blank through its
// OrBlank kind, as every other optional kind does: Kubb 4's zod output
// drops an inline branch that stands beside a $ref in one anyOf.
func legacyEnumKind(f domain.Field) *yaml.Node {
	values := f.Enum
	desc := "`" + f.Partner + "` on the legacy path: " + lowerFirst(fieldText(f))
	if f.Internal != "tipo_identificacion" {
		return yamlMap(false, "description", desc, "type", "string", "pattern", anyCasePattern(values))
	}
	codes := dianCodes()
	var nums []any
	for _, c := range codes {
		n, _ := strconv.Atoi(c)
		nums = append(nums, n)
	}
	return yamlMap(false, "description", desc, "anyOf", yamlSeq(false,
		yamlMap(true, "type", "string", "pattern", anyCasePattern(append(append([]string{}, values...), codes...))),
		yamlMap(true, "type", "integer", "enum", yamlSeq(true, nums...))))
}

// orBlankKind is an optional field's kind: a value of base, or blank.
func orBlankKind(base string) *yaml.Node {
	return yamlMap(false,
		"description", "A value as `"+base+"` describes it, or `null` or a blank string (absent).",
		"anyOf", yamlSeq(false, yamlMap(true, schemaRef(base)...), yamlMap(true, schemaRef("Blank")...)))
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
		return fmt.Sprintf("An integer from %d to %d.", f.RangeMin, f.RangeMax)
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

func lowerFirst(s string) string { return strings.ToLower(s[:1]) + s[1:] }

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

// anyCasePattern matches one of values in any case, spaces around allowed.
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
