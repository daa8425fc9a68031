package s3upload_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/s3upload"
	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/storetest"
)

// BenchmarkSave200K: a 200 KB file PUT to the test server, by 1 and by
// 32 concurrent Saves (the server's own disk work included), each
// goroutine with its own credit number as reports have: a clash costs a
// whole PUT here, unlike a link on a filesystem.
func BenchmarkSave200K(b *testing.B) {
	data := fixture.PDF(200 << 10)
	file := fixture.File(data)
	for _, c := range []int{1, 32} {
		b.Run(fmt.Sprintf("c%d", c), func(b *testing.B) {
			cfg := storetest.S3Config(b)
			st, err := s3upload.Open(context.Background(), cfg)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() {
				storetest.DeleteS3Prefix(b, storetest.S3Client(cfg), cfg)
				_ = st.Close()
			})
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			var next atomic.Int64
			var wg sync.WaitGroup
			b.ResetTimer()
			for g := range c {
				credit := fmt.Sprintf("CR-BENCH-%d", g)
				wg.Add(1)
				go func() {
					defer wg.Done()
					for next.Add(1) <= int64(b.N) {
						if _, err := st.Save(context.Background(), credit, time.Now(), file); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
		})
	}
}
