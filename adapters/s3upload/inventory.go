package s3upload

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// Walk lists the published objects (under the prefix, starting with
// domain.UploadPrefix) with their modification times. A PUT stores all or
// nothing and no multipart upload is ever started, so there are no
// leftovers to report.
func (s *Store) Walk(ctx context.Context, fn func(ports.StoredObject) error) error {
	pages := s3.NewListObjectsV2Paginator(s.client, &s3.ListObjectsV2Input{
		Bucket: &s.bucket,
		Prefix: aws.String(s.prefix + domain.UploadPrefix),
	})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return fmt.Errorf("s3 uploads %s: list objects: %w", s.where, err)
		}
		for _, o := range page.Contents {
			name := strings.TrimPrefix(aws.ToString(o.Key), s.prefix)
			if strings.Contains(name, "/") {
				continue // deeper under the prefix: not a name Save makes
			}
			if err := fn(ports.StoredObject{Name: name, ModTime: aws.ToTime(o.LastModified)}); err != nil {
				return err
			}
		}
	}
	return nil
}

// Exists reports whether an object is there (HeadObject).
func (s *Store) Exists(ctx context.Context, name string) (bool, error) {
	_, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &s.bucket, Key: aws.String(s.prefix + name)})
	if err == nil {
		return true, nil
	}
	if statusOf(err) == http.StatusNotFound {
		return false, nil
	}
	return false, fmt.Errorf("s3 uploads %s: head %s: %w", s.where, name, err)
}

// RemoveLeftover is there for ports.UploadInventory, whose sweep removes
// the temporary files of the directory store, and always refuses: a
// bucket has no leftovers. Save writes an object with one PUT, which
// stores all or nothing, and never starts a multipart upload, so Walk
// never reports an object as Temp and the sweep never calls this. What it
// could be given is a published object, which is not a leftover and must
// stay (the shared upload suite checks that it refuses one).
func (s *Store) RemoveLeftover(_ context.Context, o ports.StoredObject) error {
	return fmt.Errorf("s3 uploads %s: %s is not a leftover (a failed PUT stores nothing)", s.where, o.Name)
}
