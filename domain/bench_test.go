package domain_test

import (
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/fixture"
)

func benchMap(b *testing.B, file []byte) {
	now := time.Now()
	ms := fixture.Members(fixture.FullBody(now, "CR-BENCH-1", file))
	cat, rules := domain.DefaultCatalogue(), fixture.FileRules()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := cat.MapReport(ms, rules, now); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMapReport: mapping and validation of the 92 fields, no file.
func BenchmarkMapReport(b *testing.B) { benchMap(b, nil) }

// BenchmarkMapReportPDF200K adds the base64 decode and checks of a 200 KB PDF.
func BenchmarkMapReportPDF200K(b *testing.B) { benchMap(b, fixture.PDF(200<<10)) }

// BenchmarkIdentity: the canonical hash of the full report (every field's
// stored form), as every report without an Idempotency-Key computes it.
func BenchmarkIdentity(b *testing.B) {
	now := time.Now()
	cat := domain.DefaultCatalogue()
	rep, err := cat.MapReport(fixture.Members(fixture.FullBody(now, "CR-BENCH-1", nil)), fixture.FileRules(), now)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = cat.Identity(rep)
	}
}
