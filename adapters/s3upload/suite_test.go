package s3upload_test

import (
	"testing"

	"github.com/lender/disbursementd/test/storetest"
)

func TestUploadStoreSuite(t *testing.T) {
	t.Parallel()
	storetest.RunUploadStore(t, storetest.S3Uploads)
}
