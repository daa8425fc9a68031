package httpapi

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/lender/disbursementd/test/fixture"
)

func benchDecode(b *testing.B, file []byte) {
	body, _ := json.Marshal(fixture.FullBody(time.Now(), "CR-BENCH-1", file))
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeObject(body, 256); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeObject: the JSON body of a full report (W1).
func BenchmarkDecodeObject(b *testing.B) { benchDecode(b, nil) }

// BenchmarkDecodeObjectPDF200K: the same with a 200 KB PDF (W2).
func BenchmarkDecodeObjectPDF200K(b *testing.B) { benchDecode(b, fixture.PDF(200<<10)) }
