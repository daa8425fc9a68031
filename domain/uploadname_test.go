package domain

import (
	"testing"
	"time"
)

// TestValidUploadName: every name FileName makes passes, and nothing
// else does: no path, no other prefix, no malformed timestamp or
// extension (reconcile takes these names from an operator).
func TestValidUploadName(t *testing.T) {
	at := time.Date(2026, 11, 26, 10, 20, 30, 123e6, time.UTC)
	for _, ok := range []string{FileName("CR-1", at, "pdf"), FileName("A", at, "tif"), FileName("123456789012345678901234567890", at, "jpg")} {
		if !ValidUploadName(ok) {
			t.Errorf("ValidUploadName(%q) = false", ok)
		}
	}
	for _, bad := range []string{"", "partner_", "partner_CR-1_20261126T102030123Z", "partner_CR-1_20261126T102030123Z.",
		"../partner_CR-1_20261126T102030123Z.pdf", "partner_CR-1_20261126T102030123Z.pdf/x", "partner_../x_20261126T102030123Z.pdf",
		"partner_CR-1_20261126T102030123Z.PDF", "partner_CR-1_20261126T102030123.pdf", "partner_CR-1_20261326T102030123Z.pdf",
		"partner_CR-1_20261126T1020301a3Z.pdf", "partner_CR 1_20261126T102030123Z.pdf", "other_CR-1_20261126T102030123Z.pdf",
		".quarantine/partner_CR-1_20261126T102030123Z.pdf", "partner_CR-1_20261126T102030123Z.p/f", "partner_CR-1_20261126T102030123Z.pdfpdf"} {
		if ValidUploadName(bad) {
			t.Errorf("ValidUploadName(%q) = true", bad)
		}
	}
}
