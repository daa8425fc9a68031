package s3upload

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// QuarantinePrefix follows the store's prefix for quarantined objects:
// {prefix}quarantine/partner_…. Walk lists {prefix}partner_… only, so it
// never sees them, and Exists never names them.
const QuarantinePrefix = "quarantine/"

func (s *Store) quarantineKey(name string) string { return s.prefix + QuarantinePrefix + name }

// Quarantine copies the object to {prefix}quarantine/ (the copy is dated
// now by the server: its LastModified is when it was quarantined) and
// then deletes the published one. The copy is made only where no object
// is (looked for, and If-None-Match: *); when an object is in quarantine
// under that name already, it must be this one (same ETag: a run that
// stopped before the delete), or nothing is deleted.
func (s *Store) Quarantine(ctx context.Context, name string) error {
	if err := domain.CheckUploadName(name); err != nil {
		return err
	}
	src, err := s.head(ctx, s.prefix+name)
	if err != nil {
		return err
	}
	if src == nil {
		return domain.NewError(domain.ErrNotFound, "not_found", name+" is not published in "+s.where)
	}
	// Looked for first as well: some servers (versitygw) ignore the
	// condition on a copy. Two sweeps racing here copy the same object.
	there, err := s.head(ctx, s.quarantineKey(name))
	if err != nil {
		return err
	}
	if there == nil {
		err = s.copy(ctx, s.prefix+name, s.quarantineKey(name))
		if nameTaken(err) {
			if there, err = s.head(ctx, s.quarantineKey(name)); err == nil && there == nil {
				err = fmt.Errorf("the copy was refused, yet nothing is there")
			}
		}
		if err != nil {
			return fmt.Errorf("s3 uploads %s: quarantine %s: %w", s.where, name, err)
		}
	}
	if there != nil && aws.ToString(there.ETag) != aws.ToString(src.ETag) {
		return fmt.Errorf("s3 uploads %s: quarantine %s: another object of that name is in quarantine", s.where, name)
	}
	return s.Remove(ctx, name)
}

// WalkQuarantine lists the quarantined objects with the time each was
// quarantined.
func (s *Store) WalkQuarantine(ctx context.Context, fn func(ports.StoredObject) error) error {
	under := s.prefix + QuarantinePrefix
	pages := s3.NewListObjectsV2Paginator(s.client, &s3.ListObjectsV2Input{
		Bucket: &s.bucket,
		Prefix: aws.String(under + domain.UploadPrefix),
	})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return fmt.Errorf("s3 uploads %s: list quarantine: %w", s.where, err)
		}
		for _, o := range page.Contents {
			name := strings.TrimPrefix(aws.ToString(o.Key), under)
			if strings.Contains(name, "/") {
				continue
			}
			if err := fn(ports.StoredObject{Name: name, ModTime: aws.ToTime(o.LastModified)}); err != nil {
				return err
			}
		}
	}
	return nil
}

// Unquarantine copies a quarantined object back under its published
// name, never over a published object (looked for first, and the copy is
// conditional), and then deletes it from quarantine. A published object
// of that name with the same ETag counts as the object back in place.
func (s *Store) Unquarantine(ctx context.Context, name string) error {
	if err := domain.CheckUploadName(name); err != nil {
		return err
	}
	src, err := s.head(ctx, s.quarantineKey(name))
	if err != nil {
		return err
	}
	if src == nil {
		return domain.NewError(domain.ErrNotFound, "not_found", name+" is not in quarantine in "+s.where)
	}
	exists := domain.NewError(domain.ErrConflict, "file_exists", name+" is published in "+s.where+" already, with other content; it was not replaced")
	if dst, err := s.head(ctx, s.prefix+name); err != nil {
		return err
	} else if dst != nil {
		if aws.ToString(dst.ETag) != aws.ToString(src.ETag) {
			return exists
		}
		// The same object put back by other means: in place already.
		return s.RemoveQuarantined(ctx, name)
	}
	if err := s.copy(ctx, s.quarantineKey(name), s.prefix+name); err != nil {
		if nameTaken(err) {
			return exists.WithCause(err)
		}
		return fmt.Errorf("s3 uploads %s: move %s back from quarantine: %w", s.where, name, err)
	}
	return s.RemoveQuarantined(ctx, name)
}

// RemoveQuarantined deletes a quarantined object; a missing one is no
// error.
func (s *Store) RemoveQuarantined(ctx context.Context, name string) error {
	if err := domain.CheckUploadName(name); err != nil {
		return err
	}
	_, err := s.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &s.bucket, Key: aws.String(s.quarantineKey(name))})
	if err != nil && statusOf(err) != http.StatusNotFound {
		return fmt.Errorf("s3 uploads %s: delete %s from quarantine: %w", s.where, name, err)
	}
	return nil
}

// copy copies the object at from to to, only where no object is.
func (s *Store) copy(ctx context.Context, from, to string) error {
	_, err := s.client.CopyObject(ctx, &s3.CopyObjectInput{
		Bucket:      &s.bucket,
		Key:         aws.String(to),
		CopySource:  aws.String((&url.URL{Path: s.bucket + "/" + from}).EscapedPath()),
		IfNoneMatch: aws.String("*"),
	})
	return err
}

// head returns the object's metadata, or nil when there is none.
func (s *Store) head(ctx context.Context, key string) (*s3.HeadObjectOutput, error) {
	out, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &s.bucket, Key: aws.String(key)})
	if err == nil {
		return out, nil
	}
	if statusOf(err) == http.StatusNotFound {
		return nil, nil
	}
	return nil, fmt.Errorf("s3 uploads %s: head %s: %w", s.where, key, err)
}
