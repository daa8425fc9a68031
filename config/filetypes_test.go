package config

import (
	"slices"
	"strings"
	"testing"

	"github.com/lender/disbursementd/domain"
)

// TestAllowedTypesAreTheKnownTypes: uploads.allowed_types has one list
// behind it, the types the file checks know (domain.FileTypes): its
// default names all of them, its doc names them, and a value outside
// them is refused with a message that lists them.
func TestAllowedTypesAreTheKnownTypes(t *testing.T) {
	known := domain.FileTypes()
	s, ok := lookup("uploads.allowed_types")
	if !ok {
		t.Fatal("no key uploads.allowed_types")
	}
	if want := strings.Join(known, ","); s.Default != want {
		t.Errorf("uploads.allowed_types defaults to %q; the known types are %q", s.Default, want)
	}
	if want := "some of " + strings.Join(known, ", "); !strings.HasSuffix(s.Doc, want) {
		t.Errorf("uploads.allowed_types doc %q does not end with %q", s.Doc, want)
	}
	if got := Defaults().Uploads.AllowedTypes; !slices.Equal(got, known) {
		t.Errorf("Defaults() allows %v, want %v", got, known)
	}
	_, err := Load(writeFile(t, "uploads:\n  allowed_types: [pdf, gif]\n"))
	mustNameKey(t, err, "uploads.allowed_types")
	if want := `"gif" is not one of ` + strings.Join(known, ", "); !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v; want it to say %s", err, want)
	}
	c, err := Load(writeFile(t, "uploads:\n  allowed_types: [PDF, Tif]\n"))
	if err != nil || !slices.Equal(c.Uploads.AllowedTypes, []string{"pdf", "tif"}) {
		t.Fatalf("upper-case names: %v, %v", c, err)
	}
}

// TestUploadsFileRules: the service's file rules are the uploads settings,
// each where it belongs (distinct values, so that two swapped arguments
// show), and the defaults build.
func TestUploadsFileRules(t *testing.T) {
	c, err := Load(writeFile(t, "uploads:\n  allowed_types: [png, jpg]\n  max_file_bytes: 3MiB\n"+
		"  max_image_pixels: 5000\n  allow_pdf_scripts: true\n"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Uploads.FileRules()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Allowed(), []string{"png", "jpg"}) || r.MaxBytes() != 3<<20 || r.MaxImagePixels() != 5000 || !r.AllowPDFScripts() {
		t.Fatalf("rules: %v, %d bytes, %d pixels, scripts %v", r.Allowed(), r.MaxBytes(), r.MaxImagePixels(), r.AllowPDFScripts())
	}
	if _, err := Defaults().Uploads.FileRules(); err != nil {
		t.Fatalf("the defaults: %v", err)
	}
}
