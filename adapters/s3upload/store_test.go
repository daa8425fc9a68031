package s3upload_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/s3upload"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/storetest"
)

func TestOpenSaysWhatIsMissing(t *testing.T) {
	for _, c := range []struct {
		cfg  s3upload.Config
		want string
	}{
		{s3upload.Config{}, "bucket"},
		{s3upload.Config{Bucket: "b", Prefix: "/x/"}, "prefix"},
		{s3upload.Config{Bucket: "b", AccessKeyID: "AKIA"}, "both"},
		{s3upload.Config{Bucket: "b", SecretAccessKey: "s"}, "both"},
	} {
		if _, err := s3upload.Open(context.Background(), c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Open(%+v) = %v; want an error about %s", c.cfg, err, c.want)
		}
	}
}

func TestCheckFailsWhenTheBucketDoesNotAnswer(t *testing.T) {
	good := storetest.S3Config(t)
	for name, mod := range map[string]func(*s3upload.Config){
		"missing bucket":    func(c *s3upload.Config) { c.Bucket = "no-such-bucket-disb" },
		"wrong secret":      func(c *s3upload.Config) { c.SecretAccessKey += "x" },
		"nothing listening": func(c *s3upload.Config) { c.Endpoint = "http://" + closedPort(t) },
	} {
		cfg := good
		mod(&cfg)
		st, err := s3upload.Open(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		err = st.Check(ctx)
		cancel()
		if err == nil || !strings.Contains(err.Error(), cfg.Bucket) {
			t.Errorf("%s: Check = %v; want an error naming the bucket", name, err)
		}
	}
}

func closedPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}

// TestSaveStreams: a 20 MiB file goes out without being held: the bytes
// allocated during the whole Save (an upper bound of the heap growth)
// stay far below the file's size.
func TestSaveStreams(t *testing.T) {
	st, _, _ := openS3(t)
	_, f := storetest.LimitFile()
	ctx := context.Background()
	// A first Save warms the connection and the client's lazy state.
	if _, err := st.Save(ctx, "CR-WARM-1", time.Now(), fixture.File(fixture.PDF(1000))); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := st.Save(ctx, "CR-BIG-1", time.Now(), f); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("a %d-byte Save allocated %d bytes in all", f.Size, allocated)
	if allocated > 8<<20 {
		t.Fatalf("a %d MiB Save allocated %d bytes: the file is being held, not streamed", f.Size>>20, allocated)
	}
}

// TestSaveRetriesWithTheBodyRewound: the first PUT's connection is cut
// halfway through the body; the client's retry sends the whole content
// again (decoded anew, not buffered) and the object is whole.
func TestSaveRetriesWithTheBodyRewound(t *testing.T) {
	cfg := storetest.S3Config(t)
	cl := storetest.S3Client(cfg)
	t.Cleanup(func() { storetest.DeleteS3Prefix(t, cl, cfg) })
	u, _ := url.Parse(cfg.Endpoint)
	proxy := httputil.NewSingleHostReverseProxy(u)
	var puts atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut && puts.Add(1) == 1 {
			_, _ = io.CopyN(io.Discard, r.Body, 1000)
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				_ = conn.Close()
			}
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	defer srv.Close()
	cfg.Endpoint = srv.URL
	st, err := s3upload.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	data := fixture.PDF(256 << 10)
	at := time.Now()
	name, err := st.Save(context.Background(), "CR-RETRY-1", at, fixture.File(data))
	if err != nil {
		t.Fatal(err)
	}
	if puts.Load() < 2 {
		t.Fatalf("%d PUTs: the cut one was not retried", puts.Load())
	}
	if want := domain.FileName("CR-RETRY-1", at, "pdf"); name != want {
		t.Fatalf("saved as %s, want %s (the cut PUT stored nothing)", name, want)
	}
	got, err := getObject(t, cl, cfg, name)
	if err != nil || string(got) != string(data) {
		t.Fatalf("the retried object holds %d bytes (%v), want %d", len(got), err, len(data))
	}
}

// TestSaveFailsOnARedirect: a PUT answered with a redirect is a failure.
// Go's client would follow a 301 as a GET, whose 200 must not pass for a
// stored object.
func TestSaveFailsOnARedirect(t *testing.T) {
	var gets atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut {
			http.Redirect(w, r, "/elsewhere", http.StatusMovedPermanently)
			return
		}
		gets.Add(1)
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()
	st, err := s3upload.Open(context.Background(), s3upload.Config{
		Endpoint: srv.URL, Bucket: "b", Region: "us-east-1", PathStyle: true, AccessKeyID: "k", SecretAccessKey: "s",
	})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if name, err := st.Save(context.Background(), "CR-REDIR-1", time.Now(), fixture.File(fixture.PDF(1000))); err == nil {
		t.Fatalf("a redirected PUT was taken for stored %s", name)
	}
	if gets.Load() != 0 {
		t.Fatalf("the redirect was followed (%d GETs)", gets.Load())
	}
}
