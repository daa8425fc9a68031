package domain_test

import (
	"slices"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/fixture"
)

func benchMap(b *testing.B, file []byte) { benchMapOrdered(b, file, nil) }

// benchMapOrdered runs benchMap with the members sorted by order (nil: a
// map's order, as fixture.Members gives them).
func benchMapOrdered(b *testing.B, file []byte, order func(x, y domain.RawField) int) {
	now := time.Now()
	ms := fixture.Members(fixture.FullBody(now, "CR-BENCH-1", file))
	if order != nil {
		slices.SortFunc(ms, order)
	}
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

// BenchmarkMapReportCatalogueOrder: the same with the fields in the
// catalogue's order (a partner's DTO written in the specification's
// order), which MapReportWith reads without hashing a key.
func BenchmarkMapReportCatalogueOrder(b *testing.B) {
	cat := domain.DefaultCatalogue()
	benchMapOrdered(b, nil, func(x, y domain.RawField) int {
		fx, _ := cat.Lookup(x.Key)
		fy, _ := cat.Lookup(y.Key)
		return fx.N - fy.N
	})
}

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
