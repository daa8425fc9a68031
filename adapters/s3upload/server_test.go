package s3upload_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/lender/disbursementd/adapters/s3upload"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/storetest"
)

// These tests check that the server does what the adapter relies on; a
// server that does not is not fit for the service.

func openS3(t *testing.T) (*s3upload.Store, *s3.Client, s3upload.Config) {
	t.Helper()
	cfg := storetest.S3Config(t)
	st, err := s3upload.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	cl := storetest.S3Client(cfg)
	t.Cleanup(func() {
		storetest.DeleteS3Prefix(t, cl, cfg)
		_ = st.Close()
	})
	return st, cl, cfg
}

func status(err error) int {
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}

func getObject(t *testing.T, cl *s3.Client, cfg s3upload.Config, key string) ([]byte, error) {
	t.Helper()
	out, err := cl.GetObject(context.Background(), &s3.GetObjectInput{Bucket: &cfg.Bucket, Key: aws.String(cfg.Prefix + key)})
	if err != nil {
		return nil, err
	}
	defer out.Body.Close()
	return io.ReadAll(out.Body)
}

func TestServerVerifiesTheChecksum(t *testing.T) {
	t.Parallel()
	st, cl, cfg := openS3(t)
	ctx := context.Background()
	at := time.Now()

	// Through the adapter: a file whose SHA-256 does not match its
	// content is refused, and nothing is stored.
	f := *fixture.File(fixture.PDF(4000))
	f.SHA256[0] ^= 1
	if name, err := st.Save(ctx, "CR-SUM-1", at, &f); err == nil {
		t.Fatalf("a file with a wrong SHA-256 was stored as %s", name)
	}
	if ok, err := st.Exists(ctx, domain.FileName("CR-SUM-1", at, "pdf")); ok || err != nil {
		t.Fatalf("after a refused PUT: Exists = %v, %v", ok, err)
	}
	n := 0
	if err := st.Walk(ctx, func(o ports.StoredObject) error { n++; return nil }); err != nil || n != 0 {
		t.Fatalf("after a refused PUT: %d objects, %v", n, err)
	}

	// x-amz-checksum-sha256 alone: the signature's payload hash is right
	// (the SDK computes it from the bytes), only the checksum is wrong.
	data := []byte("the content the checksum does not describe")
	wrong := sha256.Sum256([]byte("something else"))
	_, err := cl.PutObject(ctx, &s3.PutObjectInput{
		Bucket: &cfg.Bucket, Key: aws.String(cfg.Prefix + "checksum-only"), Body: bytes.NewReader(data),
		ChecksumAlgorithm: types.ChecksumAlgorithmSha256,
		ChecksumSHA256:    aws.String(base64.StdEncoding.EncodeToString(wrong[:])),
	})
	if err == nil {
		t.Fatal("the server accepted a PUT whose x-amz-checksum-sha256 does not match the body")
	}
	t.Logf("wrong checksum: %v", err)
	if _, err := getObject(t, cl, cfg, "checksum-only"); status(err) != http.StatusNotFound {
		t.Fatalf("after a wrong checksum the object is there (or: %v)", err)
	}

	// The signed payload hash alone: right checksum, wrong payload hash.
	right := sha256.Sum256(data)
	_, err = cl.PutObject(ctx, &s3.PutObjectInput{
		Bucket: &cfg.Bucket, Key: aws.String(cfg.Prefix + "payload-hash-only"), Body: bytes.NewReader(data),
		ChecksumAlgorithm: types.ChecksumAlgorithmSha256,
		ChecksumSHA256:    aws.String(base64.StdEncoding.EncodeToString(right[:])),
	}, func(o *s3.Options) {
		o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
			return s.Finalize.Add(middleware.FinalizeMiddlewareFunc("wrong-payload-hash",
				func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
					return next.HandleFinalize(v4.SetPayloadHash(ctx, hex.EncodeToString(wrong[:])), in)
				}), middleware.Before)
		})
	})
	if err == nil {
		t.Fatal("the server accepted a PUT whose signed payload hash does not match the body")
	}
	t.Logf("wrong payload hash: %v", err)
	if _, err := getObject(t, cl, cfg, "payload-hash-only"); status(err) != http.StatusNotFound {
		t.Fatalf("after a wrong payload hash the object is there (or: %v)", err)
	}
}

func TestServerHonoursIfNoneMatch(t *testing.T) {
	t.Parallel()
	_, cl, cfg := openS3(t)
	ctx := context.Background()
	put := func(data string) error {
		_, err := cl.PutObject(ctx, &s3.PutObjectInput{
			Bucket: &cfg.Bucket, Key: aws.String(cfg.Prefix + "once"), Body: bytes.NewReader([]byte(data)),
			IfNoneMatch: aws.String("*"),
		})
		return err
	}
	if err := put("first"); err != nil {
		t.Fatal(err)
	}
	err := put("second")
	if status(err) != http.StatusPreconditionFailed {
		t.Fatalf("second conditional PUT of one name = %v; want 412", err)
	}
	if got, err := getObject(t, cl, cfg, "once"); err != nil || string(got) != "first" {
		t.Fatalf("after the refused PUT the object holds %q, %v", got, err)
	}
}
