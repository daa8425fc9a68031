package s3upload_test

import (
	"testing"

	"github.com/lender/disbursementd/test/storetest"
)

func TestUploadStoreSuite(t *testing.T) {
	storetest.RunUploadStore(t, storetest.S3Uploads)
}
