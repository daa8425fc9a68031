package e2e

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"regexp"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/lender/disbursementd/adapters/httpapi"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/testkit"
)

// moneyTable is one table of money and rate strings: whether each is
// good for a money field of 0 or more (Money), one above 0
// (PositiveMoney) and a rate (Rate).
var moneyTable = []struct {
	text                  string
	money, positive, rate bool
}{
	{"0", true, false, true},
	{"0.00", true, false, true},
	{"0.5", true, true, true},
	{"0.50", true, true, true},
	{"0.01", true, true, true},
	{"0.0", true, false, true},
	{"1", true, true, true},
	{"120000", true, true, false},
	{"14334900.55", true, true, false},
	{"9999999999999999.99", true, true, false},
	{"1.8500", false, false, true},
	{"100", true, true, true},
	{"100.0000", false, false, true},
	{"100.0001", false, false, false},
	{"99.9999", false, false, true},
	{"1.000", false, false, true},
	{"+1.00", false, false, false},
	{"-1.00", false, false, false},
	{"-0", false, false, false},
	{" 1.00", false, false, false},
	{"1.00 ", false, false, false},
	{"00012.30", false, false, false},
	{"014334900.55", false, false, false},
	{"+14334900.55", false, false, false},
	{"00", false, false, false},
	{"1.", false, false, false},
	{".5", false, false, false},
	{"1e3", false, false, false},
	{"1,00", false, false, false},
	{"10000000000000000", false, false, false},
	{"0000000000000000000000000014.30", false, false, false},
	{"1.2.3", false, false, false},
	{"١٢", false, false, false},
}

// The fields the table is tried on, one of each kind.
const (
	moneyField    = "Salario Básico"                          // 0 or more
	positiveField = "Valor Cuota Total"                       // above 0
	rateField     = "Tasa de Interés Nominal Mes Vencido (%)" // 0 to 100
)

// v1MoneyRules: money and rate strings on /v1 match the served document's
// patterns exactly, and the legacy path keeps what it took (contract §10).
func v1MoneyRules(t *testing.T, e *v1Env) {
	today := time.Now().UTC()
	patterns := servedMoneyPatterns(t, e.in.URL)
	t.Run("details: money and rate strings: the served patterns and the service agree on one table", func(t *testing.T) {
		for _, c := range moneyTable {
			for _, k := range []struct {
				schema, field string
				want          bool
			}{{"Money", moneyField, c.money}, {"PositiveMoney", positiveField, c.positive}, {"Rate", rateField, c.rate}} {
				if got := patterns[k.schema].MatchString(c.text); got != k.want {
					t.Errorf("%q: the served %s pattern says %v, the table %v", c.text, k.schema, got, k.want)
				}
				body := fixture.Minimal(today, "CR-MONEY")
				body[k.field] = c.text
				r := e.post(t, "/v1/reports/validate", e.acme, testkit.MustJSON(body))
				_, refused := problemEntries(r)[k.field]
				if r.Status != http.StatusOK && r.Status != http.StatusUnprocessableEntity {
					t.Fatalf("%q in %s: %d %s", c.text, k.field, r.Status, r.Raw)
				}
				if refused == k.want {
					t.Errorf("%q in %s: the service refuses it: %v; the table says good: %v (%s)", c.text, k.field, refused, k.want, r.Raw)
				}
			}
		}
	})
	t.Run("details: money and rate strings: the served patterns and the domain agree on random strings", func(t *testing.T) {
		// The same agreement in process, on strings made of the characters
		// that matter, so it is not only the table's cases that agree.
		cat := domain.DefaultCatalogue()
		rng := rand.New(rand.NewPCG(1, 2))
		const alphabet = "0123456789..+- "
		for range 20000 {
			b := make([]byte, 1+rng.IntN(20))
			for i := range b {
				b[i] = alphabet[rng.IntN(len(alphabet))]
			}
			if rng.IntN(3) == 0 && b[0] == '0' {
				b[0] = '1'
			}
			s := string(b)
			for schema, field := range map[string]string{"Money": moneyField, "PositiveMoney": positiveField, "Rate": rateField} {
				body := fixture.Minimal(today, "CR-MONEY")
				body[field] = s
				members, err := httpapi.DecodeObject(testkit.MustJSON(body), 256)
				if err != nil {
					t.Fatal(err)
				}
				_, mapErr := cat.MapReportWith(members, fixture.FileRules(), today, domain.MapOptions{DecimalsAsStrings: true})
				refused := mapErr != nil && hasFieldProblem(mapErr, field)
				blank := len(regexp.MustCompile(`^\s*$`).FindString(s)) == len(s)
				if !blank && patterns[schema].MatchString(s) == refused {
					t.Fatalf("%q in %s: the served %s pattern matches: %v; the domain refuses: %v (%v)", s, field, schema, !refused, refused, mapErr)
				}
			}
		}
	})
	t.Run("details: money and rate strings: the legacy path keeps accepting what it accepted", func(t *testing.T) {
		body := fixture.Minimal(today, "CR-MONEY-LEGACY")
		body["Salario Básico"] = "+1.00"
		body["Total Ingresos"] = " 1.00"
		body["Deducciones de Ley"] = "00012.30"
		body["Otras Deducciones de Nómina"] = "1.000"
		body["Monto Aprobado"] = "+14334900.55"
		body["Valor Desembolsado"] = "014334900.55"
		if r := e.in.Report(t, e.legacyAcmeTok, testkit.MustJSON(body)); r.Status != http.StatusOK {
			t.Fatalf("legacy: %d %s", r.Status, r.Raw)
		}
	})
}

// servedMoneyPatterns reads the Money, PositiveMoney and Rate patterns
// from the document the instance serves.
func servedMoneyPatterns(t *testing.T, base string) map[string]*regexp.Regexp {
	t.Helper()
	r := testkit.Call(t, http.MethodGet, base+"/openapi.yaml", nil, nil)
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Pattern string `yaml:"pattern"`
			} `yaml:"schemas"`
		} `yaml:"components"`
	}
	if err := yaml.Unmarshal(r.Raw, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]*regexp.Regexp{}
	for _, name := range []string{"Money", "PositiveMoney", "Rate"} {
		p := doc.Components.Schemas[name].Pattern
		if p == "" {
			t.Fatalf("the served document has no %s pattern", name)
		}
		// The patterns use only what ECMA-262 and RE2 read alike.
		out[name] = regexp.MustCompile(p)
	}
	return out
}

// hasFieldProblem reports whether err lists a problem of field.
func hasFieldProblem(err error, field string) bool {
	for _, p := range asInvalid(err) {
		if p.Field == field {
			return true
		}
	}
	return false
}

func asInvalid(err error) []domain.Problem {
	var de *domain.Error
	if errors.As(err, &de) {
		return de.Problems
	}
	panic(fmt.Sprintf("not a *domain.Error: %v", err))
}
