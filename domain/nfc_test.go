package domain_test

import (
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/fixture"
)

// TestMapReadsTextInNFC: a report's text values are stored in NFC (contract
// §10), whatever surface hands the members over: a name typed with a
// combining accent and the same name precomposed are one value.
func TestMapReadsTextInNFC(t *testing.T) {
	body := fixture.Minimal(now, "CR-1")
	body["Primer Apellido"] = "Pe\u0301rez"
	body["Observaciones"] = "  Bogota\u0301  "
	rep, err := domain.DefaultCatalogue().MapReport(members(t, body), fixture.FileRules(), now)
	if err != nil {
		t.Fatalf("MapReport: %v", err)
	}
	for internal, want := range map[string]string{"primer_apellido": "P\u00e9rez", "observaciones": "Bogot\u00e1"} {
		if v, _ := rep.Get(internal); v.Str != want {
			t.Errorf("%s = %q, want %q", internal, v.Str, want)
		}
	}
	if got := domain.NFC("Pe\u0301rez"); got != "P\u00e9rez" {
		t.Errorf("NFC = %q", got)
	}
}

// TestNFCBoundIsExact: a text of four code points per character of the
// field's maximum is put in NFC (it may fit: U+1F82 is four code points
// decomposed and one composed), and one code point more is refused
// too_long without being normalised.
func TestNFCBoundIsExact(t *testing.T) {
	decomposed := "\u03b1\u0313\u0300\u0345" // NFD of U+1F82
	if n := utf8.RuneCountInString(decomposed); n != 4 || domain.NFC(decomposed) != "\u1f82" {
		t.Fatalf("U+1F82 decomposed: %d code points, NFC %q", n, domain.NFC(decomposed))
	}
	cat := domain.DefaultCatalogue()
	f, _ := cat.ByInternal("observaciones")
	body := fixture.Minimal(now, "CR-1")
	body[f.Partner] = strings.Repeat(decomposed, f.Max)
	rep, err := cat.MapReport(members(t, body), fixture.FileRules(), now)
	if err != nil {
		t.Fatalf("%d characters of 4 code points each: %v", f.Max, err)
	}
	if v, _ := rep.Get("observaciones"); v.Str != strings.Repeat("\u1f82", f.Max) {
		t.Errorf("stored %d code points, want %d precomposed", utf8.RuneCountInString(v.Str), f.Max)
	}
	body[f.Partner] = strings.Repeat(decomposed, f.Max) + "a"
	_, err = cat.MapReport(members(t, body), fixture.FileRules(), now)
	if ps := problems(t, err); len(ps) != 1 || ps[0].Field != f.Partner || ps[0].Code != domain.CodeTooLong {
		t.Errorf("one code point more: %v, want %s too_long", ps, f.Partner)
	}
}

// TestNFCWorkIsBoundedByTheField: a text that grows under NFC (U+1D160:
// 4 bytes, 12 in NFC) far longer than its field is refused too_long, and
// reading it allocates a small part of its size, not the three times it
// would take in NFC (issue 32, finding 6). The same holds for a field that
// is not text.
func TestNFCWorkIsBoundedByTheField(t *testing.T) {
	const size = 4 << 20
	grows := strings.Repeat("\U0001D160", size/4)
	for _, name := range []string{"Observaciones", "Fecha de Desembolso"} {
		body := fixture.Minimal(now, "CR-1")
		body[name] = grows
		ms := members(t, body)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := domain.DefaultCatalogue().MapReport(ms, fixture.FileRules(), now)
		runtime.ReadMemStats(&after)
		if ps := problems(t, err); len(ps) != 1 || ps[0].Field != name {
			t.Errorf("%s of %d MiB growing under NFC: %v, want one problem naming it", name, size>>20, ps)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > size/8 {
			t.Errorf("%s: mapping allocated %d bytes for a %d-byte text, want under %d", name, got, size, size/8)
		}
	}
}
