package config

import (
	"strings"
	"time"

	"github.com/lender/disbursementd/domain"
)

// finishUploads checks the uploads section. The bounds of the file rules
// are the domain's: its rules decide them, in their words, and FileRules
// builds from them what they accepted.
func (c *Config) finishUploads() error {
	u := &c.Uploads
	for i, t := range u.AllowedTypes {
		u.AllowedTypes[i] = strings.ToLower(t)
	}
	if err := firstErr(
		domainRule("uploads.max_file_bytes", domain.CheckMaxFileBytes(int64(u.MaxFileBytes))),
		domainRule("uploads.allowed_types", domain.CheckFileTypes(u.AllowedTypes)),
		domainRule("uploads.max_image_pixels", domain.CheckMaxImagePixels(int64(u.MaxImagePixels))),
	); err != nil {
		return err
	}
	if u.SweepInterval != 0 && u.SweepInterval < time.Second {
		return keyError("uploads.sweep_interval", "%s, want 0 (off) or at least 1s", u.SweepInterval)
	}
	if u.QuarantineRetention < 24*time.Hour {
		return keyError("uploads.quarantine_retention", "%s, want at least 1d (a quarantined file may be a report whose row a restore lost)", u.QuarantineRetention)
	}
	switch u.Backend {
	case "fs":
	case "s3":
		if u.S3.Bucket == "" {
			return keyError("uploads.s3.bucket", "required when uploads.backend is s3")
		}
	default:
		return keyError("uploads.backend", "%q, want fs or s3", u.Backend)
	}
	if u.S3.Endpoint != "" && !isHTTPURL(u.S3.Endpoint) {
		return keyError("uploads.s3.endpoint", "%q is not an http(s) URL", u.S3.Endpoint)
	}
	if (u.S3.AccessKeyID == "") != (u.S3.SecretAccessKey == "") {
		return keyError("uploads.s3.access_key_id", "set both uploads.s3.access_key_id and uploads.s3.secret_access_key, or neither (the AWS chain)")
	}
	return nil
}

// FileRules are the uploads settings as the domain's file rules: the one
// place they are built from configuration (the service and its tests).
// A Config that Load returned always has valid ones.
func (u UploadsConfig) FileRules() (domain.FileRules, error) {
	return domain.NewFileRules(u.AllowedTypes, int64(u.MaxFileBytes), int64(u.MaxImagePixels), u.AllowPDFScripts)
}
