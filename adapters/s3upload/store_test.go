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
	"sync"
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
	t.Parallel()
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
	t.Parallel()
	cfg := storetest.S3Config(t)
	cl := storetest.S3Client(cfg)
	t.Cleanup(func() { storetest.DeleteS3Prefix(t, cl, cfg) })
	u, _ := url.Parse(cfg.Endpoint)
	proxy := httputil.NewSingleHostReverseProxy(u)
	var puts atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut && strings.Contains(r.URL.Path, "partner_") && puts.Add(1) == 1 {
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
	t.Parallel()
	var gets atomic.Int32
	fake := &fakeS3{conditional: true}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPut && strings.Contains(r.URL.Path, "partner_"):
			http.Redirect(w, r, "/elsewhere", http.StatusMovedPermanently)
		case r.Method == http.MethodGet:
			gets.Add(1)
			w.WriteHeader(http.StatusOK)
		default:
			fake.ServeHTTP(w, r)
		}
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

// TestRefusesAServerThatIgnoresIfNoneMatch: Check and Save fail, naming
// the problem, on a server that lets a second conditional PUT overwrite an
// object; and the same probe passes on one that refuses it.
func TestRefusesAServerThatIgnoresIfNoneMatch(t *testing.T) {
	t.Parallel()
	for _, conditional := range []bool{false, true} {
		fake := &fakeS3{conditional: conditional}
		srv := httptest.NewServer(fake)
		st, err := s3upload.Open(context.Background(), s3upload.Config{
			Endpoint: srv.URL, Bucket: "b", Region: "us-east-1", PathStyle: true, AccessKeyID: "k", SecretAccessKey: "s",
		})
		if err != nil {
			t.Fatal(err)
		}
		checkErr := st.Check(context.Background())
		_, saveErr := st.Save(context.Background(), "CR-COND-1", time.Now(), fixture.File(fixture.PDF(1000)))
		_ = st.Close()
		srv.Close()
		if !conditional {
			for _, err := range []error{checkErr, saveErr} {
				if err == nil || !strings.Contains(err.Error(), "If-None-Match") {
					t.Errorf("on a server that ignores If-None-Match: %v; want an error naming it", err)
				}
			}
			continue
		}
		if checkErr != nil || saveErr != nil {
			t.Errorf("on a server that honours If-None-Match: Check %v, Save %v", checkErr, saveErr)
		}
		if left := fake.keys(); len(left) != 1 || !strings.Contains(left[0], "partner_CR-COND-1_") {
			t.Errorf("objects left: %q; want only the saved file (the probe deleted)", left)
		}
	}
}

// fakeS3 answers just what the store sends: HEAD bucket, PUT (with
// If-None-Match: * honoured only if conditional), DELETE.
type fakeS3 struct {
	conditional bool
	mu          sync.Mutex
	objects     map[string]bool
}

func (f *fakeS3) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.objects == nil {
		f.objects = map[string]bool{}
	}
	switch r.Method {
	case http.MethodPut:
		if f.conditional && r.Header.Get("If-None-Match") == "*" && f.objects[r.URL.Path] {
			w.WriteHeader(http.StatusPreconditionFailed)
			return
		}
		f.objects[r.URL.Path] = true
	case http.MethodDelete:
		delete(f.objects, r.URL.Path)
		w.WriteHeader(http.StatusNoContent)
		return
	}
	w.WriteHeader(http.StatusOK)
}

func (f *fakeS3) keys() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var ks []string
	for k := range f.objects {
		ks = append(ks, k)
	}
	return ks
}
