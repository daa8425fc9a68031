package httpapi

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/lender/disbursementd/domain"
)

func TestDecodeObjectRefuses(t *testing.T) {
	for name, body := range map[string]string{
		"empty":            ``,
		"array":            `[1]`,
		"string":           `"x"`,
		"trailing garbage": `{"a":1} x`,
		"two objects":      `{"a":1}{"b":2}`,
		"BOM":              "\xEF\xBB\xBF{}",
		"invalid UTF-8":    "{\"a\":\"\xff\"}",
		"unterminated":     `{"a":`,
		"nested 10000":     `{"a":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`,
		"bad literal":      `{"a":tru}`,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := DecodeObject([]byte(body), 256)
			var de *domain.Error
			if !errors.As(err, &de) || !errors.Is(err, domain.ErrInvalidInput) || de.Message == "" {
				t.Fatalf("DecodeObject(%.40q) = %v, want a clear ErrInvalidInput", body, err)
			}
		})
	}
}

// TestMemberBoundDecidedWhileScanning: past the bound the scan stops with
// too_many_members (nested members count), having kept nothing per member:
// a 33 MB body of {"a":0,"a":0,…} allocates almost nothing.
func TestMemberBoundDecidedWhileScanning(t *testing.T) {
	members := func(n int) string {
		return `{` + strings.TrimSuffix(strings.Repeat(`"a":0,`, n), ",") + `}`
	}
	if _, err := DecodeObject([]byte(members(256)), 256); err != nil {
		t.Fatalf("256 members: %v", err)
	}
	nested := `{"f":{` + strings.TrimSuffix(strings.Repeat(`"b":1,`, 200), ",") + `},` + strings.TrimSuffix(strings.Repeat(`"a":0,`, 56), ",") + `}`
	for name, body := range map[string]string{"flat 257": members(257), "an object of 200 and 56 more": nested} {
		_, err := DecodeObject([]byte(body), 256)
		var de *domain.Error
		if !errors.As(err, &de) || de.Code != "too_many_members" || !errors.Is(err, domain.ErrInvalidInput) {
			t.Errorf("%s: %v, want too_many_members", name, err)
		}
		// The message counts the catalogue's fields, not a number of its own.
		if want := "un reporte tiene " + strconv.Itoa(len(domain.DefaultCatalogue().Fields)) + " campos"; de == nil || !strings.HasSuffix(de.Message, want) {
			t.Errorf("%s: %v, want it to end with %q", name, err, want)
		}
	}
	bomb := []byte(members(33 << 20 / 6))
	allocs := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = DecodeObject(bomb, 256)
		}
	})
	if perOp := allocs.AllocedBytesPerOp(); perOp > 64<<10 {
		t.Fatalf("a %d MB member bomb allocated %d bytes; the scan must stop at the bound", len(bomb)>>20, perOp)
	}
}
