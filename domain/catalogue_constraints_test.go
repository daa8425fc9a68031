package domain_test

import (
	"encoding/csv"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/fixture"
)

// A constraint change is one edit of fields.csv's constraint column and a
// value whose fate it must change: refused before and accepted after, or the
// other way round. loadFails marks an edit the catalogue must refuse.
type constraintChange struct {
	internal   string
	constraint string
	value      any
	okBefore   bool
	loadFails  bool
}

// TestCatalogueReadsEveryConstraint edits each constraint of the shipped
// fields.csv in a copy and sees the behaviour change, so no constraint is
// text that only documents a rule. Every field with a constraint must have
// at least one change here: a new one fails the test until it does.
func TestCatalogueReadsEveryConstraint(t *testing.T) {
	rows, err := csv.NewReader(strings.NewReader(domain.FieldsCSV())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	sent := map[string]any{}
	for _, v := range fixture.Full(now) {
		f, _ := domain.DefaultCatalogue().Lookup(v.Partner)
		sent[f.Internal] = v.Sent
	}
	var changes []constraintChange
	for _, row := range rows[1:] {
		changes = append(changes, changesFor(t, row, sent[row[2]])...)
	}
	covered := map[string]bool{}
	for _, ch := range changes {
		covered[ch.internal] = true
		name := ch.internal + " " + ch.constraint
		t.Run(name, func(t *testing.T) {
			c, err := domain.LoadCatalogue(strings.NewReader(withConstraint(t, rows, ch.internal, ch.constraint)))
			if ch.loadFails {
				if err == nil {
					t.Fatalf("LoadCatalogue accepted constraint %q", ch.constraint)
				}
				return
			}
			if err != nil {
				t.Fatalf("LoadCatalogue: %v", err)
			}
			if got := accepts(t, domain.DefaultCatalogue(), ch.internal, ch.value); got != ch.okBefore {
				t.Fatalf("shipped catalogue accepts %v: %v, want %v", ch.value, got, ch.okBefore)
			}
			if got := accepts(t, c, ch.internal, ch.value); got == ch.okBefore {
				t.Fatalf("after the edit the catalogue still accepts %v: %v", ch.value, got)
			}
		})
	}
	for _, row := range rows[1:] {
		if strings.TrimSpace(row[5]) != "" && !covered[row[2]] {
			t.Errorf("field %s: constraint %q has no change in this test", row[2], row[5])
		}
	}
}

// changesFor returns the edits of one row's constraint, by its type.
func changesFor(t *testing.T, row []string, value any) []constraintChange {
	internal, typ, c := row[2], domain.FieldType(row[3]), row[5]
	text := strings.TrimSpace(toString(value))
	ch := func(constraint string, v any, okBefore bool) constraintChange {
		return constraintChange{internal: internal, constraint: constraint, value: v, okBefore: okBefore}
	}
	refused := func(constraint string) constraintChange {
		return constraintChange{internal: internal, constraint: constraint, loadFails: true}
	}
	switch typ {
	case domain.TypeString, domain.TypeEmail:
		return []constraintChange{ch("max="+strconv.Itoa(len([]rune(text))-1), value, true), refused("max=0")}
	case domain.TypeEnum:
		var keep []string
		for _, v := range strings.Split(c, "|") {
			if v != "CC" && !strings.EqualFold(v, text) {
				keep = append(keep, v)
			}
		}
		if internal == "tipo_identificacion" {
			return []constraintChange{ch(strings.Join(keep, "|"), "CC", true), refused(c + "|XX")}
		}
		return []constraintChange{ch(strings.Join(keep, "|"), value, true)}
	case domain.TypeInteger:
		n, _ := strconv.Atoi(text)
		return []constraintChange{ch(strconv.Itoa(n+1)+".."+strconv.Itoa(n+10), value, true), refused(c + " digits")}
	case domain.TypePhone:
		n := len(strings.Map(digitsOnly, text))
		return []constraintChange{ch(strconv.Itoa(n+1)+".."+strconv.Itoa(n+2)+" digits", value, true), refused(strings.TrimSuffix(c, " digits"))}
	case domain.TypeMoney:
		switch c {
		case ">=0":
			return []constraintChange{ch(">0", "0", true)}
		case ">0":
			return []constraintChange{ch(">=0", "0", false)}
		default: // ">0 and <= Monto Aprobado": a value above the approved amount
			return []constraintChange{ch(">0", "99999999.00", false), refused(">0 and <= Nadie")}
		}
	case domain.TypeRate:
		return []constraintChange{
			ch("0..1 (percent; 4 decimals)", "50", true),
			ch("0..100 (percent; 1 decimals)", "1.25", true),
			refused("0..100 (percent; 5 decimals)"),
			refused("0..100000 (percent; 4 decimals)"),
			refused("0..100"),
		}
	case domain.TypeDate:
		switch {
		case c == "":
			return nil
		case strings.HasPrefix(c, ">= "):
			return []constraintChange{ch("", now.AddDate(0, 0, -30).Format("2006-01-02"), false), refused(">= nowhere")}
		default: // not after today + 1 day
			return []constraintChange{ch("", now.AddDate(0, 0, 10).Format("2006-01-02"), false)}
		}
	case domain.TypeDANE:
		return []constraintChange{ch("4 digits", value, true), refused("five digits")}
	case domain.TypeCreditNumber:
		return []constraintChange{
			ch("1..10 of A-Z a-z 0-9 - (it names the saved file)", strings.Repeat("A", 25), true),
			refused("1..31 of A-Z a-z 0-9 -"),
			refused("1..30 of A-Z a-z 0-9 - . /"),
			refused("1..30"),
		}
	case domain.TypeIdentification:
		return []constraintChange{refused("see primer_nombre"), refused("see nowhere"), refused("3..20")}
	case domain.TypeFile:
		return []constraintChange{refused(""), refused("Base64")}
	case domain.TypeNIT, domain.TypeBoolean:
		return []constraintChange{refused("max=3")}
	}
	t.Fatalf("field %s: type %s has no constraint changes", internal, typ)
	return nil
}

// withConstraint returns fields.csv with one field's constraint replaced.
func withConstraint(t *testing.T, rows [][]string, internal, constraint string) string {
	t.Helper()
	var b strings.Builder
	w := csv.NewWriter(&b)
	for _, r := range rows {
		r = append([]string(nil), r...)
		if r[2] == internal {
			r[5] = constraint
		}
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	return b.String()
}

// accepts maps the full fixture report with one field set to v and tells
// whether that field came through without a problem of its own.
func accepts(t *testing.T, c *domain.Catalogue, internal string, v any) bool {
	t.Helper()
	f, ok := c.ByInternal(internal)
	if !ok {
		t.Fatalf("no field %s", internal)
	}
	body := fixture.FullBody(now, "CR-1", fixture.PDF(2048))
	body[f.Partner] = v
	_, err := c.MapReport(fixture.Members(body), fixture.FileRules(), now)
	if err == nil {
		return true
	}
	var de *domain.Error
	if !errors.As(err, &de) {
		t.Fatalf("MapReport: %v", err)
	}
	for _, p := range de.Problems {
		if p.Field == f.Partner {
			return false
		}
	}
	return true // other fields' problems (a 0 approved amount makes the disbursement too large) are not this field's
}

func toString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case int:
		return strconv.Itoa(x)
	case interface{ String() string }:
		return x.String()
	}
	return ""
}

func digitsOnly(r rune) rune {
	if r >= '0' && r <= '9' {
		return r
	}
	return -1
}
