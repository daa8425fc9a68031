package domain

import (
	"os"
	"strings"
	"testing"
)

func TestDefaultCatalogue(t *testing.T) {
	c := DefaultCatalogue()
	if got := len(c.Fields); got != 92 {
		t.Fatalf("catalogue has %d fields, want 92", got)
	}
	// The three mappings the spec gives are fixed.
	for partner, internal := range map[string]string{
		"Numero de Convenio":         "convenio",
		"Tipo de identificación":     "tipo_identificacion",
		"Identificación del cliente": "nit_cc",
	} {
		f, ok := c.Lookup(partner)
		if !ok || f.Internal != internal {
			t.Errorf("Lookup(%q) = %q, %v; want %q", partner, f.Internal, ok, internal)
		}
	}
	seenTypes := map[FieldType]bool{}
	for i, f := range c.Fields {
		if f.N != i+1 {
			t.Errorf("field %d numbered %d", i+1, f.N)
		}
		seenTypes[f.Type] = true
	}
	if len(seenTypes) != 14 {
		t.Errorf("%d field types in use, want 14: %v", len(seenTypes), seenTypes)
	}
}

// TestEmbeddedMatchesContract keeps the shipped copy equal to the
// contract's fields.csv when the shared folder is beside the repository.
func TestEmbeddedMatchesContract(t *testing.T) {
	want, err := os.ReadFile("../../shared/contract/fields.csv")
	if err != nil {
		t.Skipf("shared contract not beside the repository: %v", err)
	}
	if strings.TrimSpace(string(want)) != strings.TrimSpace(FieldsCSV()) {
		t.Fatal("domain/fields.csv differs from ../shared/contract/fields.csv: copy it, then add the migration of each new column as adapters/gormstore/migrations/README.md says")
	}
}

func TestLoadCatalogueRefusesUnknownRules(t *testing.T) {
	head := "n,partner_name,internal_name,type,required,constraints,group\n"
	for name, row := range map[string]string{
		"unknown type":        `1,A,a,blob,no,,g`,
		"string without max":  `1,A,a,string,no,,g`,
		"money rule":          `1,A,a,money,no,<5,g`,
		"date rule":           `1,A,a,date,no,someday,g`,
		"required flag":       `1,A,a,string,maybe,max=3,g`,
		"bad range":           `1,A,a,integer,no,9..1,g`,
		"unknown reference":   `1,A,a,date,no,>= nowhere,g`,
		"duplicate key":       "1,A,a,string,no,max=3,g\n2,a,b,string,no,max=3,g",
		"wrong column number": `1,A,a,string,no`,
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := LoadCatalogue(strings.NewReader(head + row + "\n")); err == nil {
				t.Fatalf("LoadCatalogue accepted %q", row)
			}
		})
	}
}

func TestNormalizeKey(t *testing.T) {
	c := DefaultCatalogue()
	for _, key := range []string{
		"Número de Crédito", "Numero de Credito", "NÚMERO DE CRÉDITO", "  numero   de\tcredito ",
		"Nu\u0301mero de Cre\u0301dito", // decomposed accents (NFD)
		"numero_credito",                // the internal name
	} {
		f, ok := c.Lookup(key)
		if !ok || f.Internal != "numero_credito" {
			t.Errorf("Lookup(%q) = %q, %v; want numero_credito", key, f.Internal, ok)
		}
	}
	for _, key := range []string{"Numero de Creditos", "numero credito", "Número-de-Crédito", ""} {
		if f, ok := c.Lookup(key); ok {
			t.Errorf("Lookup(%q) found %q, want no field", key, f.Internal)
		}
	}
	if got := NormalizeKey("Tasa de Interés Nominal Mes Vencido (%)"); got != "tasa de interes nominal mes vencido (%)" {
		t.Errorf("NormalizeKey = %q", got)
	}
}
