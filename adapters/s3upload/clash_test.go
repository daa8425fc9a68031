package s3upload_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/s3upload"
	"github.com/lender/disbursementd/test/faultproxy"
	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/storetest"
)

// TestConcurrentSavesOfOneCreditUploadOnce: 64 Saves of one credit number
// at the same instant, on one Store against the S3 server, make exactly 64
// object PUTs (counted by a proxy) and 64 distinct objects: names are
// reserved in the process before the upload, so no body is sent twice for
// a name clash.
func TestConcurrentSavesOfOneCreditUploadOnce(t *testing.T) {
	t.Parallel()
	cfg := storetest.S3Config(t)
	cl := storetest.S3Client(cfg)
	t.Cleanup(func() { storetest.DeleteS3Prefix(t, cl, cfg) })
	proxy := faultproxy.StartHTTP(t, cfg.Endpoint)
	cfg.Endpoint = proxy.URL()
	st, err := s3upload.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	if err := st.Check(ctx); err != nil { // the conditional-write probe, before counting
		t.Fatal(err)
	}
	proxy.Reset()
	const n = 64
	at := time.Now()
	data := fixture.PDF(100 << 10)
	names := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			names[i], errs[i] = st.Save(ctx, "CR-CLASH-1", at, fixture.File(data))
		})
	}
	close(start)
	wg.Wait()
	seen := map[string]bool{}
	for i, err := range errs {
		if err != nil {
			t.Fatalf("Save %d: %v", i, err)
		}
		seen[names[i]] = true
	}
	if len(seen) != n {
		t.Fatalf("%d distinct names for %d Saves", len(seen), n)
	}
	if puts := proxy.Objects("PUT"); puts != n {
		t.Fatalf("%d object PUTs for %d Saves; want one each", puts, n)
	}
}
