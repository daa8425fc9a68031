package storetest_test

import (
	"testing"

	"github.com/lender/disbursementd/test/storetest"
)

// TestUploadStoreFake holds the in-memory fake, which the use-case tests
// stand on, to the rules the real stores keep.
func TestUploadStoreFake(t *testing.T) {
	storetest.RunUploadStore(t, storetest.FakeUploads)
}
