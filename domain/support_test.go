package domain_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
)

func TestMaskIdentification(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"1020304050", "10******50"},
		{"900123456-8", "90*******-8"},
		{"12345", "1***5"},
		{"1234", "****"},
		{"AB12", "****"},
		{"", ""},
		{"ñ123456789", "ñ1******89"},
	} {
		if got := domain.MaskIdentification(tt.in); got != tt.want {
			t.Errorf("MaskIdentification(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestShownFieldsMaskIdentificationNumbers: every identification number
// and NIT of the full test report is masked, booleans read true or false,
// and every other field shows its stored form.
func TestShownFieldsMaskIdentificationNumbers(t *testing.T) {
	c := domain.DefaultCatalogue()
	now := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	rep := fullReportForTest(t, c, now)
	shown := domain.ShownFields(rep)
	if len(shown) != rep.Len() || len(shown) < 80 {
		t.Fatalf("%d fields shown of %d", len(shown), rep.Len())
	}
	masked := 0
	for _, s := range shown {
		v, _ := rep.Get(s.Field.Internal)
		stored := domain.StoredForm(s.Field, v)
		switch {
		case s.Field.IsIdentification():
			masked++
			if s.Text == stored || !strings.Contains(s.Text, "****") || len(s.Text) != len(stored) {
				t.Errorf("%s: shown %q for %q", s.Field.Internal, s.Text, stored)
			}
		case s.Field.Type == domain.TypeBoolean:
			if s.Text != strconv.FormatBool(v.Bool) {
				t.Errorf("%s: shown %q for %v", s.Field.Internal, s.Text, v.Bool)
			}
		case s.Text != stored:
			t.Errorf("%s: shown %q, stored %q", s.Field.Internal, s.Text, stored)
		}
	}
	if masked != 4 { // nit_pagaduria, nit_originador, nit_fideicomiso, nit_cc
		t.Errorf("%d identification numbers masked, want 4", masked)
	}
}

// TestProblemNameHidesUnknownKeys: a known field is named; a key that is
// no field is named by its hash prefix only.
func TestProblemNameHidesUnknownKeys(t *testing.T) {
	known := domain.Problem{Field: "Monto Aprobado", Code: domain.CodeRequired}
	if got := domain.ProblemName(known); got != "Monto Aprobado" {
		t.Errorf("known field: %q", got)
	}
	unknown := domain.Problem{Field: "1020304050", Code: domain.CodeUnknownField}
	got := domain.ProblemName(unknown)
	if got != "sha256:"+domain.HashPrefix("1020304050") || strings.Contains(got, "1020304050") {
		t.Errorf("unknown key: %q", got)
	}
	// printf '%s' 1020304050 | sha256sum | cut -c1-12
	if h := domain.HashPrefix("1020304050"); len(h) != 12 || h != "9e1f341dff91" {
		t.Errorf("HashPrefix = %q", h)
	}
}
