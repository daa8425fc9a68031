package storetest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/lender/disbursementd/adapters/fsupload"
	"github.com/lender/disbursementd/adapters/s3upload"
	"github.com/lender/disbursementd/adapters/sysclock"
	"github.com/lender/disbursementd/test/fakes"
)

// The variables naming the test S3 server (test/s3.sh exports them).
const (
	EnvS3Endpoint  = "DISB_TEST_S3_ENDPOINT"
	EnvS3Bucket    = "DISB_TEST_S3_BUCKET"
	EnvS3AccessKey = "DISB_TEST_S3_ACCESS_KEY"
	EnvS3SecretKey = "DISB_TEST_S3_SECRET_KEY"
)

// FSUploads opens a filesystem upload store in a temp directory.
func FSUploads(tb testing.TB) UploadHarness {
	tb.Helper()
	dir := tb.TempDir()
	st, err := fsupload.Open(dir, fsupload.Options{Clock: sysclock.Clock{}})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = st.Close() })
	return UploadHarness{
		Store: st, Inventory: st,
		Read: func(name string) ([]byte, error) { return os.ReadFile(filepath.Join(dir, name)) },
		Put:  func(name string, data []byte) error { return os.WriteFile(filepath.Join(dir, name), data, 0o640) },
		Leftover: func() (string, error) {
			name := ".tmp-" + randomHex(8)
			return name, os.WriteFile(filepath.Join(dir, name), []byte("half a file"), 0o640)
		},
	}
}

// FakeUploads is the in-memory fake, held to the same suite so that
// tests using it can trust it.
func FakeUploads(tb testing.TB) UploadHarness {
	up := fakes.NewUploads(wallClock{})
	return UploadHarness{
		Store: up, Inventory: up,
		Read: func(name string) ([]byte, error) {
			if data, ok := up.Data(name); ok {
				return data, nil
			}
			return nil, os.ErrNotExist
		},
		Put: func(name string, data []byte) error { up.PutFile(name, data, wallClock{}.Now()); return nil },
		Leftover: func() (string, error) {
			name := ".tmp-" + randomHex(8)
			up.PutLeftover(name, wallClock{}.Now())
			return name, nil
		},
	}
}

// S3Config returns the test S3 server's settings with a prefix of its
// own, so tests share the bucket without seeing each other's objects.
// Without DISB_TEST_S3_ENDPOINT the test skips, except under CI=true,
// where it fails.
func S3Config(tb testing.TB) s3upload.Config {
	tb.Helper()
	needEnv(tb, EnvS3Endpoint, "the S3 tests against a real S3 server (test/s3.sh)", "a throwaway versitygw (test/s3.sh)")
	cfg, _ := S3FromEnv("t-" + randomHex(6) + "/")
	return cfg
}

// S3FromEnv returns the test S3 server's settings (test/s3.sh exports
// them) under prefix; ok is false when DISB_TEST_S3_ENDPOINT is not set.
func S3FromEnv(prefix string) (_ s3upload.Config, ok bool) {
	endpoint := os.Getenv(EnvS3Endpoint)
	return s3upload.Config{
		Endpoint: endpoint, Bucket: os.Getenv(EnvS3Bucket), Prefix: prefix,
		Region: "us-east-1", PathStyle: true,
		AccessKeyID: os.Getenv(EnvS3AccessKey), SecretAccessKey: os.Getenv(EnvS3SecretKey),
	}, endpoint != ""
}

// S3Client is a plain client of the test server, for looking around the
// store under test.
func S3Client(c s3upload.Config) *s3.Client {
	return s3.New(s3.Options{
		Region: c.Region, BaseEndpoint: aws.String(c.Endpoint), UsePathStyle: c.PathStyle,
		Credentials: credentials.NewStaticCredentialsProvider(c.AccessKeyID, c.SecretAccessKey, ""),
	})
}

// S3Uploads opens an S3 upload store on the test server, under a fresh
// prefix whose objects are deleted at cleanup.
func S3Uploads(tb testing.TB) UploadHarness {
	tb.Helper()
	cfg := S3Config(tb)
	ctx := context.Background()
	st, err := s3upload.Open(ctx, cfg)
	if err != nil {
		tb.Fatal(err)
	}
	cl := S3Client(cfg)
	tb.Cleanup(func() {
		DeleteS3Prefix(tb, cl, cfg)
		_ = st.Close()
	})
	return UploadHarness{
		Store: st, Inventory: st,
		Read: func(name string) ([]byte, error) {
			out, err := cl.GetObject(ctx, &s3.GetObjectInput{Bucket: &cfg.Bucket, Key: aws.String(cfg.Prefix + name)})
			if err != nil {
				return nil, err
			}
			defer out.Body.Close()
			return io.ReadAll(out.Body)
		},
		Put: func(name string, data []byte) error {
			_, err := cl.PutObject(ctx, &s3.PutObjectInput{Bucket: &cfg.Bucket, Key: aws.String(cfg.Prefix + name), Body: bytes.NewReader(data)})
			return err
		},
	}
}

// DeleteS3Prefix deletes every object under the config's prefix; what
// it cannot delete is logged.
func DeleteS3Prefix(tb testing.TB, cl *s3.Client, cfg s3upload.Config) {
	if err := DeletePrefix(context.Background(), cl, cfg); err != nil {
		tb.Logf("clean up %s: %v", cfg.Prefix, err)
	}
}

// DeletePrefix deletes every object under the config's prefix, going on
// past failures, and returns them.
func DeletePrefix(ctx context.Context, cl *s3.Client, cfg s3upload.Config) error {
	var errs []error
	pages := s3.NewListObjectsV2Paginator(cl, &s3.ListObjectsV2Input{Bucket: &cfg.Bucket, Prefix: &cfg.Prefix})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return errors.Join(append(errs, err)...)
		}
		for _, o := range page.Contents {
			if _, err := cl.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &cfg.Bucket, Key: o.Key}); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", aws.ToString(o.Key), err))
			}
		}
	}
	return errors.Join(errs...)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

type wallClock struct{}

func (wallClock) Now() time.Time { return time.Now() }
