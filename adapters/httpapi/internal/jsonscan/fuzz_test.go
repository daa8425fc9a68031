package jsonscan

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/lender/disbursementd/domain"
)

// FuzzObject: any body either decodes to members or is refused with an
// error that says why; never a panic. Differentially, what it accepts
// encoding/json accepts too, with the same strings, and a valid shallow
// JSON object without BOM is never refused.
func FuzzObject(f *testing.F) {
	for _, seed := range []string{
		`{"Numero de Convenio":"CV-1","Plazo (meses)":36,"Documento Soporte":{"Base64String":"JVBERi0="}}`,
		`{"a":1}{"b":2}`, "\xEF\xBB\xBF{}", `{"a":[[[[1]]]]}`, `{"a":"\u0000"}`, `{"a":1e400,"b":-0}`, `[]`, ``,
		`{"a":"\ud83d\ude00 \ud800 \udc00x \u00e9\/"}`, `{"a":01}`, `{"a":1.}`, `{"a":"x` + "\x01" + `"}`,
		// escapes at the ends of the runs escaped copies whole
		`{"a":"\\","b":"x\\\"y\/"}`, `{"a":"x\/` + "\x01" + `"}`, `{"a":"x\/y\`, `{"a":"x\/y`, `{"a":"\u00"}`,
		`{"a":"` + strings.Repeat(`abc\/`, 1500) + `"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		ms, err := Object(body, 1<<20) // the member bound has its own test
		var ref map[string]json.RawMessage
		refErr := json.Unmarshal(body, &ref)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("Object(%q) refused it without saying why", body)
			}
			if refErr == nil && utf8.Valid(body) && !bytes.HasPrefix(body, []byte("\xEF\xBB\xBF")) && shallow(body) {
				t.Fatalf("Object refused valid JSON %q: %v", body, err)
			}
			return
		}
		if refErr != nil {
			t.Fatalf("Object accepted %q, which encoding/json refuses: %v", body, refErr)
		}
		for _, m := range ms {
			want := ref[m.Key]
			if m.Value.Kind == domain.RawString {
				var s string
				if json.Unmarshal(want, &s) == nil && len(ms) == len(ref) && s != m.Value.Text {
					t.Fatalf("member %q = %q, encoding/json reads %q", m.Key, m.Value.Text, s)
				}
			}
			if m.Value.Kind == domain.RawNumber && m.Value.Text == "" {
				t.Fatalf("number without its literal in %q", body)
			}
		}
	})
}

// shallow reports whether body nests at most maxDepth levels, outside
// strings (a rough check for the fuzz oracle).
func shallow(body []byte) bool {
	d, deepest, inString, escaped := 0, 0, false, false
	for _, c := range body {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			d++
			deepest = max(deepest, d)
		case c == '}' || c == ']':
			d--
		}
	}
	return deepest <= maxDepth
}
