package domain

import (
	"errors"
	"testing"
	"time"
)

func minimalMembers() []RawField {
	s := func(k, v string) RawField { return RawField{Key: k, Value: RawValue{Kind: RawString, Text: v}} }
	return []RawField{
		s("Numero de Convenio", "CV-1"), s("Tipo de identificación", "CC"), s("Identificación del cliente", "1020304050"),
		s("Primer Nombre", "Ana"), s("Primer Apellido", "Pérez"), s("Número de Crédito", "CR-1"),
		s("Monto Aprobado", "100.00"), s("Plazo (meses)", "12"), s("Tasa de Interés Nominal Mes Vencido (%)", "1.5"),
		s("Valor Cuota Total", "10"), s("Fecha de Desembolso", "2026-11-26"), s("Valor Desembolsado", "100"),
	}
}

// FuzzMapReport: one extra member of any key, kind and text. The mapping
// never panics; it accepts the report or lists problems that each name a
// field; an accepted numero_credito is always a safe file name.
func FuzzMapReport(f *testing.F) {
	f.Add("Observaciones", uint8(RawString), "hola")
	f.Add("Número de Crédito", uint8(RawString), "../../etc/passwd")
	f.Add("NUMERO DE CREDITO", uint8(RawNumber), "1e400")
	f.Add("Salario Básico", uint8(RawNumber), "-0")
	f.Add("Fecha de Nacimiento", uint8(RawString), "1987-02-29T25:61:61Z")
	f.Add("Codigo DANE Ciudad Residencia", uint8(RawNumber), "5001")
	f.Add("Documento Soporte", uint8(RawObject), "")
	cat, rules := DefaultCatalogue(), testRules(f)
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, key string, kind uint8, text string) {
		v := RawValue{Kind: RawKind(kind % 6), Text: text, Bool: len(text)%2 == 0}
		if v.Kind == RawObject {
			v.Members = []RawField{{Key: "Base64String", Value: RawValue{Kind: RawString, Text: text}}}
		}
		rep, err := cat.MapReport(append(minimalMembers(), RawField{Key: key, Value: v}), rules, now)
		if err != nil {
			var de *Error
			if !errors.As(err, &de) || len(de.Problems) == 0 || !(errors.Is(err, ErrInvalidInput) || errors.Is(err, ErrTooLarge)) {
				t.Fatalf("error %v has no problems or an unexpected kind", err)
			}
			for _, p := range de.Problems {
				if p.Field == "" && key != "" || p.Code == "" || p.Message == "" {
					t.Fatalf("problem without field, code or message: %+v", p)
				}
			}
			return
		}
		if !ValidCreditNumber(rep.Text("numero_credito")) {
			t.Fatalf("accepted unsafe numero_credito %q", rep.Text("numero_credito"))
		}
	})
}
