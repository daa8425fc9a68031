package fsupload_test

import (
	"testing"

	"github.com/lender/disbursementd/test/storetest"
)

func TestUploadStoreSuite(t *testing.T) {
	storetest.RunUploadStore(t, storetest.FSUploads)
}
