package fsupload

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/sysclock"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/fixture"
)

// BenchmarkSave200K: a 200 KB file written, fsynced, linked and the
// directory fsynced: the durable write every W2 report pays. With 32
// Saves at once (c32) the directory syncs are shared.
func BenchmarkSave200K(b *testing.B) {
	data := fixture.PDF(200 << 10)
	file := fixture.File(data)
	for _, c := range []int{1, 32} {
		b.Run(map[int]string{1: "c1", 32: "c32"}[c], func(b *testing.B) {
			s, err := Open(b.TempDir(), Options{Clock: sysclock.Clock{}})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			saveConcurrently(b, s, file, c)
			b.ReportMetric(float64(s.cur.Load().sync.ended())/float64(b.N), "dirsyncs/op")
		})
	}
}

// saveConcurrently runs b.N Saves spread over c goroutines.
func saveConcurrently(b *testing.B, s *Store, file *domain.File, c int) {
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	for range c {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(b.N) {
				if _, err := s.Save(context.Background(), "CR-BENCH", time.Now(), file); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}
