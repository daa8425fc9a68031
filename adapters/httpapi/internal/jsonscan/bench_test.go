package jsonscan

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/lender/disbursementd/test/fixture"
)

func benchDecode(b *testing.B, file []byte) {
	body, _ := json.Marshal(fixture.FullBody(time.Now(), "CR-BENCH-1", file))
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Object(body, 256); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkObject: the JSON body of a full report (W1).
func BenchmarkObject(b *testing.B) { benchDecode(b, nil) }

// BenchmarkObjectPDF200K: the same with a 200 KB PDF (W2).
func BenchmarkObjectPDF200K(b *testing.B) { benchDecode(b, fixture.PDF(200<<10)) }

// BenchmarkObjectFile200KEscaped: a body with a 200 KB file of random
// bytes as PHP's json_encode writes it, every '/' (one base64 character
// in 64) as "\/".
func BenchmarkObjectFile200KEscaped(b *testing.B) {
	file := make([]byte, 200<<10)
	_, _ = rand.NewChaCha8([32]byte{}).Read(file)
	body, _ := json.Marshal(fixture.FullBody(time.Now(), "CR-BENCH-1", file))
	body = bytes.ReplaceAll(body, []byte("/"), []byte(`\/`))
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Object(body, 256); err != nil {
			b.Fatal(err)
		}
	}
}
