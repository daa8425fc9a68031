package domain_test

import (
	"encoding/base64"
	"strconv"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/fixture"
)

// TestIdentityIsTheReportNotItsSpelling: the same report written with
// other key spellings, key order, numbers as strings or other base64
// line breaks has one identity; any stored difference changes it.
func TestIdentityIsTheReportNotItsSpelling(t *testing.T) {
	cat := domain.DefaultCatalogue()
	now := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	pdf := fixture.PDF(3000)
	identity := func(t *testing.T, body map[string]any) string {
		t.Helper()
		rep, err := cat.MapReport(fixture.Members(body), fixture.FileRules(), now)
		if err != nil {
			t.Fatal(err)
		}
		return cat.Identity(rep)
	}
	base := fixture.Minimal(now, "CR-1")
	base["Documento Soporte"] = fixture.FileDto(pdf, "a.pdf")
	want := identity(t, base)

	respelled := map[string]any{}
	for k, v := range base {
		respelled[k] = v
	}
	delete(respelled, "Número de Crédito")
	respelled["NUMERO  DE CREDITO"] = "CR-1" // case, accents, spaces
	delete(respelled, "Plazo (meses)")
	respelled["plazo_meses"] = "36" // internal name, number as a string
	delete(respelled, "Valor Desembolsado")
	respelled["Valor Desembolsado"] = "14334900.00" // same decimal, other digits
	b64 := base64.StdEncoding.EncodeToString(pdf)
	respelled["Documento Soporte"] = map[string]any{"base64string": b64[:100] + "\r\n" + b64[100:], "FileName": "other-name.pdf"}
	if got := identity(t, respelled); got != want {
		t.Errorf("respelled report: identity %s, want %s", got, want)
	}

	for name, change := range map[string]func(map[string]any){
		"another credit": func(b map[string]any) { b["Número de Crédito"] = "CR-2" },
		"another amount": func(b map[string]any) { b["Valor Desembolsado"] = "14334899.99" },
		"an extra field": func(b map[string]any) { b["Segundo Nombre"] = "María" },
		"another file":   func(b map[string]any) { b["Documento Soporte"] = fixture.FileDto(fixture.PDF(5000), "a.pdf") },
		"no file":        func(b map[string]any) { delete(b, "Documento Soporte") },
	} {
		b := map[string]any{}
		for k, v := range base {
			b[k] = v
		}
		change(b)
		if identity(t, b) == want {
			t.Errorf("%s: same identity as the original", name)
		}
	}
	if domain.KeyHash("k", want) == domain.KeyHash("", want) {
		t.Error("a keyed and an unkeyed submission share a key hash")
	}
}

// TestStoredValueIsTheStoredForm: the parameter bound for every field of a
// full report is its stored text, as a number for integers and booleans.
func TestStoredValueIsTheStoredForm(t *testing.T) {
	cat := domain.DefaultCatalogue()
	now := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	rep, err := cat.MapReport(fixture.Members(fixture.FullBody(now, "CR-1", nil)), fixture.FileRules(), now)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[domain.FieldType]bool{}
	for i, f := range cat.Fields {
		v, ok := rep.At(i)
		if !ok {
			continue
		}
		seen[f.Type] = true
		got := domain.StoredValue(f, v)
		switch f.Type {
		case domain.TypeInteger, domain.TypeBoolean:
			n, isInt := got.(int64)
			if !isInt || strconv.FormatInt(n, 10) != domain.StoredForm(f, v) {
				t.Errorf("%s (%v): StoredValue %#v, StoredForm %q", f.Internal, f.Type, got, domain.StoredForm(f, v))
			}
		default:
			if got != domain.StoredForm(f, v) {
				t.Errorf("%s (%v): StoredValue %#v, StoredForm %q", f.Internal, f.Type, got, domain.StoredForm(f, v))
			}
		}
	}
	for _, typ := range []domain.FieldType{domain.TypeInteger, domain.TypeBoolean, domain.TypeMoney, domain.TypeDate} {
		if !seen[typ] {
			t.Errorf("the full report has no %v field: the test covers less than it says", typ)
		}
	}
}

// TestStoredOfKinds: the one switch on a field's type gives integers and
// booleans a number kind (true as 1, false as 0) and everything else
// text, whose Text is what the staging table keeps.
func TestStoredOfKinds(t *testing.T) {
	for _, tt := range []struct {
		typ  domain.FieldType
		v    domain.Value
		kind domain.StoredKind
		text string
	}{
		{domain.TypeInteger, domain.Value{Int: -42}, domain.StoredInteger, "-42"},
		{domain.TypeBoolean, domain.Value{Bool: true}, domain.StoredBoolean, "1"},
		{domain.TypeBoolean, domain.Value{}, domain.StoredBoolean, "0"},
		{domain.TypeMoney, domain.Value{Dec: domain.Decimal{Units: 1433490000, Scale: 2}}, domain.StoredText, "14334900.00"},
		{domain.TypeDate, domain.Value{Date: time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)}, domain.StoredText, "2026-11-26"},
		{domain.TypeString, domain.Value{Str: "007"}, domain.StoredText, "007"},
	} {
		s := domain.StoredOf(domain.Field{Type: tt.typ}, tt.v)
		if s.Kind != tt.kind || s.Text() != tt.text || s.Kind == domain.StoredBoolean && s.Bool() != tt.v.Bool {
			t.Errorf("%v %+v: kind %d, text %q, bool %v; want kind %d, text %q", tt.typ, tt.v, s.Kind, s.Text(), s.Bool(), tt.kind, tt.text)
		}
	}
}
