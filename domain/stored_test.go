package domain_test

import (
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/fixture"
)

// fullReportForTest is the full test report with a PDF.
func fullReportForTest(t *testing.T, c *domain.Catalogue, now time.Time) *domain.Report {
	t.Helper()
	rep, err := c.MapReport(fixture.Members(fixture.FullBody(now, "CR-STORED-1", fixture.PDF(1024))), fixture.FileRules(), now)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestValueFromStoredInvertsStoredValue: every value of the full test
// report, written as domain.StoredValue writes it and read back in each shape a
// driver returns (text as string or bytes, numbers as int64, dates as
// time.Time), is the value that was stored.
func TestValueFromStoredInvertsStoredValue(t *testing.T) {
	c := domain.DefaultCatalogue()
	now := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	rep := fullReportForTest(t, c, now)
	for i, f := range c.Fields {
		v, ok := rep.At(i)
		if !ok {
			continue
		}
		stored := domain.StoredValue(f, v)
		shapes := []any{stored}
		switch x := stored.(type) {
		case string:
			shapes = append(shapes, []byte(x))
			if f.Type == domain.TypeDate {
				shapes = append(shapes, v.Date.Add(0))
			}
		case int64:
			shapes = append(shapes, []byte(domain.StoredForm(f, v)))
		}
		for _, s := range shapes {
			got, present, err := domain.ValueFromStored(f, s)
			if err != nil || !present || domain.StoredForm(f, got) != domain.StoredForm(f, v) || got != v {
				t.Errorf("%s: %T %v reads back as %+v (%v, %v), want %+v", f.Internal, s, s, got, present, err, v)
			}
		}
	}
	if _, present, err := domain.ValueFromStored(c.Fields[0], nil); present || err != nil {
		t.Errorf("NULL reads as present (%v) or fails (%v)", present, err)
	}
}

// TestValueFromStoredRefusesWhatStoredValueNeverWrites: a column that
// holds what no validated value stores is an error, never a guess.
func TestValueFromStoredRefusesWhatStoredValueNeverWrites(t *testing.T) {
	c := domain.DefaultCatalogue()
	field := func(internal string) domain.Field {
		f, ok := c.ByInternal(internal)
		if !ok {
			t.Fatalf("no field %s", internal)
		}
		return f
	}
	for _, tt := range []struct {
		internal string
		stored   any
	}{
		{"monto_aprobado", "1.4e7"},
		{"monto_aprobado", "14334900.555"},
		{"monto_aprobado", int64(5)},
		{"tasa_nominal_mensual", "abc"},
		{"fecha_desembolso", "26/11/2026"},
		{"fecha_desembolso", int64(20261126)},
		{"plazo_meses", "3.5"},
		{"es_pep", int64(2)},
		{"es_pep", "S"},
		{"primer_nombre", time.Now()},
		{"primer_nombre", 1.5},
	} {
		if v, present, err := domain.ValueFromStored(field(tt.internal), tt.stored); err == nil {
			t.Errorf("%s: %T %v read as %+v (%v), want an error", tt.internal, tt.stored, tt.stored, v, present)
		}
	}
}

// TestRestoreReport: a report rebuilt from its stored columns has every
// field it had, and a column that does not read is named in the error.
func TestRestoreReport(t *testing.T) {
	c := domain.DefaultCatalogue()
	now := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	rep := fullReportForTest(t, c, now)
	column := func(i int, f domain.Field) any {
		v, ok := rep.At(i)
		if !ok {
			return nil
		}
		return domain.StoredValue(f, v)
	}
	got, err := c.RestoreReport(column)
	if err != nil {
		t.Fatal(err)
	}
	if c.Identity(got) == c.Identity(rep) {
		t.Error("the file came back: it is not a column")
	}
	rep.File = nil
	if c.Identity(got) != c.Identity(rep) {
		t.Error("the restored report differs from the stored one")
	}
	_, err = c.RestoreReport(func(i int, f domain.Field) any {
		if f.Internal == "plazo_meses" {
			return "many"
		}
		return column(i, f)
	})
	if err == nil || !strings.Contains(err.Error(), "plazo_meses") {
		t.Fatalf("a bad column: %v, want an error naming plazo_meses", err)
	}
}
