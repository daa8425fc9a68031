package fsupload

import (
	"context"
	"testing"
	"time"

	"github.com/lender/disbursementd/test/fixture"
)

// BenchmarkSave200K: a 200 KB file written, fsynced, linked and the
// directory fsynced: the durable write every W2 report pays.
func BenchmarkSave200K(b *testing.B) {
	s, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	data := fixture.PDF(200 << 10)
	file := fixture.File(data)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Save(context.Background(), "CR-BENCH", time.Now(), file); err != nil {
			b.Fatal(err)
		}
	}
}
