package jsonscan

import (
	"testing"

	"github.com/lender/disbursementd/domain"
)

// TestObject: members in arrival order with duplicates, numbers as
// written, the FileDto's members read and deeper objects kept by kind.
func TestObject(t *testing.T) {
	ms, err := Object([]byte(`{"a":"x","a":1.50,"b":null,"c":true,"d":[1],"e":{"Base64String":"QQ==","n":{"deep":1}},"f":-0,"g":1e400}`), 256)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		key  string
		kind domain.RawKind
		text string
	}{{"a", domain.RawString, "x"}, {"a", domain.RawNumber, "1.50"}, {"b", domain.RawNull, ""}, {"c", domain.RawBool, ""},
		{"d", domain.RawArray, ""}, {"e", domain.RawObject, ""}, {"f", domain.RawNumber, "-0"}, {"g", domain.RawNumber, "1e400"}}
	if len(ms) != len(want) {
		t.Fatalf("%d members, want %d", len(ms), len(want))
	}
	for i, w := range want {
		if ms[i].Key != w.key || ms[i].Value.Kind != w.kind || ms[i].Value.Text != w.text {
			t.Errorf("member %d = %+v, want %+v", i, ms[i], w)
		}
	}
	if f := ms[5].Value.Members; len(f) != 2 || f[0].Value.Text != "QQ==" || f[1].Value.Kind != domain.RawObject {
		t.Errorf("FileDto members = %+v", f)
	}
}

// TestClosingQuoteSkipsEscapedQuotes: the buffer of an escaped string is
// sized by its closing quote, which an odd run of backslashes escapes and
// an even one does not.
func TestClosingQuoteSkipsEscapedQuotes(t *testing.T) {
	for in, want := range map[string]int{
		`ab"`: 2, `a\"b"`: 4, `a\\"b"`: 3, `a\\\"b"`: 6, `\\\\"`: 4, `abc`: 3, `a\"`: 3,
	} {
		if got := closingQuote([]byte(in), 0); got != want {
			t.Errorf("closingQuote(%s) = %d, want %d", in, got, want)
		}
	}
	members, err := Object([]byte(`{"a":"x\/y\\\"z\u00e9","b":"q"}`), 10)
	if err != nil || members[0].Value.Text != `x/y\"zé` || members[1].Value.Text != "q" {
		t.Fatalf("escaped value: %+v, %v", members, err)
	}
}

// TestEscapedStringErrorsSayWhere: in a string with escapes (read a run
// at a time), a control character, a bad escape or a missing quote is
// refused at the byte where it stands, whichever comes first.
func TestEscapedStringErrorsSayWhere(t *testing.T) {
	for in, want := range map[string]string{
		"{\"a\":\"x\\/y\x01z\"}":        "carácter de control sin escapar en un texto (byte 10)",
		"{\"a\":\"\\/\x1f\\q\"}":        "carácter de control sin escapar en un texto (byte 8)",
		"{\"a\":\"x\\/y\\q\x01\"}":      "escape no válido (byte 12)",
		"{\"a\":\"x\\\x01\"}":           "escape no válido (byte 9)",
		"{\"a\":\"x\\/\\u00\"}":         "escape \\u no válido (byte 11)",
		"{\"a\":\"x\\/\\u00\x01\"}":     "escape \\u no válido (byte 11)",
		"{\"a\":\"\\/\\ud800\\u\x01\"}": "escape \\u no válido (byte 16)",
		"{\"a\":\"x\\/y\\":              "texto sin cerrar (byte 10)",
		"{\"a\":\"x\\/y":                "texto sin cerrar (byte 10)",
		"{\"a\":\"x\\/y\"":              "el cuerpo termina antes de cerrar el objeto (byte 11)",
	} {
		if _, err := Object([]byte(in), 10); err == nil || err.Error() != "JSON mal formado: "+want {
			t.Errorf("Object(%q): %v, want %q", in, err, want)
		}
	}
}
