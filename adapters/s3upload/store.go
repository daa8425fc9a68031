// Package s3upload keeps the reports' files in an S3-compatible bucket,
// under the same names and rules as the filesystem store: an object is
// created only where none exists (If-None-Match: *; on 412 the timestamp
// moves on by a millisecond), a Save is acknowledged only after its PUT
// succeeded, and the server verifies the content against the SHA-256 sent
// with it.
//
// The client is aws-sdk-go-v2's service/s3 rather than minio-go/v7. The
// SDK is the reference client of the protocol and has a typed field for
// each thing the rules need: IfNoneMatch, ChecksumSHA256 as a value known
// before the upload (it is sent as given; nothing reads the body to
// compute it), ContentLength; its config module is the standard AWS
// credential chain (environment, shared files, SSO, web identity,
// container and instance roles); and it brings in only AWS's own modules
// and smithy-go, where minio-go brings several third-party ones. Its one
// snag is plain HTTP (a local server): to sign a PUT it reads the body for
// its SHA-256, which needs a seekable body and a second pass. The SHA-256
// is known, so it is handed to the signer as the payload hash
// (withPayloadHash): the body is read once, as it is sent, decoded from
// base64 on the fly, and the server checks it against both the signed
// hash and x-amz-checksum-sha256. The body can still seek (by decoding
// again), so the SDK's retries of a failed PUT work without buffering.
package s3upload

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// Config says where the objects go.
type Config struct {
	Endpoint string // e.g. http://127.0.0.1:7070; "" for AWS itself
	Bucket   string
	Prefix   string // put before every object name, e.g. "uploads/"
	Region   string // "" for the environment's, else us-east-1
	// PathStyle addresses the bucket in the path (endpoint/bucket/key),
	// as most S3-compatible servers want, instead of as a host name.
	PathStyle bool
	// Both empty: the standard AWS environment/config chain.
	AccessKeyID, SecretAccessKey string
}

// Store is an S3 bucket (or a prefix in one) holding the files.
type Store struct {
	client    *s3.Client
	transport *http.Transport
	bucket    string
	prefix    string
	where     string // for messages: bucket, prefix and endpoint

	conditional atomic.Bool // the server was seen to refuse a second If-None-Match: * PUT
	probing     sync.Mutex  // one probe at a time
	names       *nameBook   // names this Store is writing or wrote lately
}

var (
	_ ports.UploadStore     = (*Store)(nil)
	_ ports.UploadInventory = (*Store)(nil)
)

// maxClashes bounds how far a Save moves the timestamp on while names
// are taken.
const maxClashes = 1000

// Open makes a client for c. It does not contact the server; Check does.
func Open(ctx context.Context, c Config) (*Store, error) {
	switch {
	case c.Bucket == "":
		return nil, errors.New("s3 uploads: the bucket is not set")
	case strings.HasPrefix(c.Prefix, "/"):
		return nil, fmt.Errorf("s3 uploads: prefix %q must not start with /", c.Prefix)
	case (c.AccessKeyID == "") != (c.SecretAccessKey == ""):
		return nil, errors.New("s3 uploads: give both the access key id and the secret access key, or neither (then the AWS environment/config chain is used)")
	}
	var opts []func(*config.LoadOptions) error
	if c.Region != "" {
		opts = append(opts, config.WithRegion(c.Region))
	}
	if c.AccessKeyID != "" {
		opts = append(opts, config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(c.AccessKeyID, c.SecretAccessKey, "")))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("s3 uploads: load AWS configuration: %w", err)
	}
	if cfg.Region == "" {
		cfg.Region = "us-east-1" // what S3-compatible servers expect when nothing says otherwise
	}
	// The SDK's client as configured (e.g. AWS_CA_BUNDLE in its TLS
	// settings), on a transport of the store's own, so Close can drop its
	// connections.
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if bc, ok := cfg.HTTPClient.(*awshttp.BuildableClient); ok {
		tr = bc.GetTransport()
	}
	tr.MaxIdleConnsPerHost = 64 // reports upload concurrently: keep their connections
	cfg.HTTPClient = &http.Client{
		Transport: tr,
		// Never follow a redirect: Go would turn a redirected PUT into a
		// GET, whose 200 would read as a stored object.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	client := s3.NewFromConfig(cfg, func(o *s3.Options) {
		if c.Endpoint != "" {
			o.BaseEndpoint = aws.String(c.Endpoint)
		}
		o.UsePathStyle = c.PathStyle
	})
	where := "s3://" + c.Bucket + "/" + c.Prefix
	if c.Endpoint != "" {
		where += " at " + domain.MaskCredentials(c.Endpoint) // every error names it
	}
	return &Store{client: client, transport: tr, bucket: c.Bucket, prefix: c.Prefix, where: where, names: newNameBook()}, nil
}

// Close drops the idle connections to the server.
func (s *Store) Close() error {
	s.transport.CloseIdleConnections()
	return nil
}

// Check says whether the bucket answers (HeadBucket): reachable, there,
// and the credentials accepted; and, until it has once, whether the server
// honours conditional creates (see conditionalCreates).
func (s *Store) Check(ctx context.Context) error {
	if _, err := s.client.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: &s.bucket}); err != nil {
		return fmt.Errorf("s3 uploads %s: the bucket does not answer: %w", s.where, err)
	}
	return s.conditionalCreates(ctx)
}

// conditionalCreates makes sure, once per Store, that the server refuses
// a PUT with If-None-Match: * to a name that exists. Save's names are
// unique only because of it: a server that ignores the header (some
// S3-compatible ones, and older releases of others) would let two reports
// of one credit in the same millisecond overwrite one another's file. The
// probe writes a small object under the prefix twice (outside partner_*,
// so the sweep never sees it) and deletes it.
func (s *Store) conditionalCreates(ctx context.Context) error {
	if s.conditional.Load() {
		return nil
	}
	s.probing.Lock()
	defer s.probing.Unlock()
	if s.conditional.Load() {
		return nil
	}
	var nonce [8]byte
	_, _ = rand.Read(nonce[:])
	key := s.prefix + probePrefix + hex.EncodeToString(nonce[:])
	put := func() error {
		_, err := s.client.PutObject(ctx, &s3.PutObjectInput{
			Bucket: &s.bucket, Key: &key, Body: strings.NewReader("probe"),
			ContentLength: aws.Int64(5), IfNoneMatch: aws.String("*"),
		})
		return err
	}
	if err := put(); err != nil {
		return fmt.Errorf("s3 uploads %s: probe PUT: %w", s.where, err)
	}
	second := put()
	_, delErr := s.client.DeleteObject(context.WithoutCancel(ctx), &s3.DeleteObjectInput{Bucket: &s.bucket, Key: &key})
	switch {
	case nameTaken(second):
	case second == nil:
		return fmt.Errorf("s3 uploads %s: the server ignores If-None-Match: * (a second PUT to one name succeeded); "+
			"file names would not be unique, so files could overwrite one another: use a server that supports conditional writes", s.where)
	default:
		return fmt.Errorf("s3 uploads %s: probe PUT: %w", s.where, second)
	}
	if delErr != nil && statusOf(delErr) != http.StatusNotFound {
		return fmt.Errorf("s3 uploads %s: delete probe %s: %w", s.where, key, delErr)
	}
	s.conditional.Store(true)
	return nil
}

// probePrefix starts the names of conditionalCreates' probe objects.
const probePrefix = ".disbursementd-probe-"

// Save uploads f's content in one PUT under domain.FileName, created only
// if no object has that name (on a clash the timestamp moves on by a
// millisecond), with its SHA-256 for the server to verify. It returns
// once the server has stored the object. Names this Store is writing or
// wrote lately are skipped before the upload (nameBook), so Saves of one
// credit number at once on one replica upload once each.
func (s *Store) Save(ctx context.Context, creditNumber string, at time.Time, f *domain.File) (string, error) {
	if !domain.ValidCreditNumber(creditNumber) {
		return "", fmt.Errorf("refusing file name for credit number %q", creditNumber)
	}
	if err := s.conditionalCreates(ctx); err != nil {
		return "", err
	}
	for i := 0; i <= maxClashes; i++ {
		name := domain.FileName(creditNumber, at.Add(time.Duration(i)*time.Millisecond), f.Ext)
		if !s.names.reserve(name) {
			continue
		}
		err := s.put(ctx, name, f)
		s.names.release(name, err == nil || nameTaken(err))
		if err == nil {
			return name, nil
		}
		if !nameTaken(err) {
			return "", fmt.Errorf("s3 uploads %s: put %s: %w", s.where, name, err)
		}
	}
	return "", fmt.Errorf("s3 uploads %s: %d names in a row taken for credit %s", s.where, maxClashes+1, creditNumber)
}

func (s *Store) put(ctx context.Context, name string, f *domain.File) error {
	sum := base64.StdEncoding.EncodeToString(f.SHA256[:])
	out, err := s.client.PutObject(ctx, &s3.PutObjectInput{
		Bucket:            &s.bucket,
		Key:               aws.String(s.prefix + name),
		Body:              newBody(f),
		ContentLength:     aws.Int64(f.Size),
		ContentType:       aws.String(f.ContentType),
		IfNoneMatch:       aws.String("*"),
		ChecksumAlgorithm: types.ChecksumAlgorithmSha256,
		ChecksumSHA256:    aws.String(sum),
	}, withPayloadHash(hex.EncodeToString(f.SHA256[:])))
	if err != nil {
		return err
	}
	if out.ChecksumSHA256 != nil && *out.ChecksumSHA256 != sum {
		// Stored, but not what was sent: take it back.
		_ = s.Remove(context.WithoutCancel(ctx), name)
		return fmt.Errorf("the server stored SHA-256 %s, %s was sent", *out.ChecksumSHA256, sum)
	}
	return nil
}

// Remove deletes an object; a missing one is no error.
func (s *Store) Remove(ctx context.Context, name string) error {
	_, err := s.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &s.bucket, Key: aws.String(s.prefix + name)})
	if err != nil && statusOf(err) != http.StatusNotFound {
		return fmt.Errorf("s3 uploads %s: delete %s: %w", s.where, name, err)
	}
	return nil
}

// nameTaken: the conditional create found an object there (412), or a
// concurrent conditional write to that name is in progress (409, which
// AWS answers when it cannot tell yet).
func nameTaken(err error) bool {
	code := statusOf(err)
	return code == http.StatusPreconditionFailed || code == http.StatusConflict
}

// statusOf returns the HTTP status of a failed call, or 0.
func statusOf(err error) int {
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}
