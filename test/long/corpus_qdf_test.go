package long

import (
	"bytes"
	"encoding/base64"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/lender/disbursementd/domain/filecheck"
)

// TestQDFLengthsFollowed: qpdf's QDF form (qpdf --qdf, the form people
// edit PDFs in by hand) writes every stream uncompressed, each /Length as
// a reference to an object right after the stream. An ICC profile's
// stream has /N, so the check reads it as an uncompressed object stream,
// which a viewer reads by its /Length; until the twentieth session a
// /Length it did not follow made every later name count as that object
// stream's, so two bytes of a later font spelling /EF (binary data does,
// about once in 2^27 bytes) refused a real document. The length is
// followed now (domain/filecheck/pdf_length.go): pdfcpu's
// pike-stanford.pdf in QDF form, /EF written into the font after its first
// ICC profile, passes; with that profile's length object raised past its
// data (a viewer would then read the font as its objects), it is refused.
// qpdf --check reads both as sound PDFs.
func TestQDFLengthsFollowed(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("qpdf"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true and qpdf is missing (.ci/run installs it)")
		}
		t.Skip("qpdf is missing (.ci/run installs it)")
	}
	dir, err := moduleDir("github.com/pdfcpu/pdfcpu@v0.15.0")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	qdf := filepath.Join(tmp, "qdf.pdf")
	if out, err := exec.Command("qpdf", "--qdf", "--object-streams=disable",
		filepath.Join(dir, "pkg", "testdata", "pike-stanford.pdf"), qdf).CombinedOutput(); err != nil {
		t.Fatalf("qpdf --qdf: %v: %s", err, out)
	}
	pdf, err := os.ReadFile(qdf)
	if err != nil {
		t.Fatal(err)
	}
	icc := regexp.MustCompile(`/N 3\s+/Length (\d+) 0 R\s+>>\s+stream\n`).FindSubmatchIndex(pdf)
	if icc == nil {
		t.Fatal("no ICC profile stream with an indirect /Length in qpdf's QDF form: the test proves nothing")
	}
	font := regexp.MustCompile(`/Length1 \d+\s+/Length \d+ 0 R\s+>>\s+stream\n`).FindIndex(pdf[icc[1]:])
	if font == nil {
		t.Fatal("no uncompressed font after the ICC profile: the test proves nothing")
	}
	at := icc[1] + font[1] + 1000
	marked := bytes.Clone(pdf)
	copy(marked[at:], "/EF ")
	num := string(pdf[icc[2]:icc[3]])
	def := regexp.MustCompile(`\n` + num + ` 0 obj\n(\d+)\nendobj`).FindSubmatchIndex(marked)
	if def == nil {
		t.Fatalf("no definition of the ICC profile's length, object %s", num)
	}
	length, _ := strconv.Atoi(string(marked[def[2]:def[3]]))
	longer := bytes.Clone(marked)
	// As many digits, a larger number: the offsets stay right.
	copy(longer[def[2]:def[3]], "9"+strconv.Itoa(length)[1:])
	for _, c := range []struct {
		name string
		pdf  []byte
		want filecheck.Kind
	}{
		{"as qpdf wrote it, /EF in the font", marked, 0},
		{"the profile's length past its data", longer, filecheck.ActiveContent},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(tmp, "check.pdf")
			if err := os.WriteFile(path, c.pdf, 0o600); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command("qpdf", "--check", path).CombinedOutput(); err != nil {
				var exit *exec.ExitError
				if !errors.As(err, &exit) || exit.ExitCode() != 3 { // 3: warnings only
					t.Fatalf("qpdf --check: %v: %s", err, out)
				}
			}
			_, fe := filecheck.Inspect(base64.StdEncoding.EncodeToString(c.pdf),
				filecheck.Limits{Allowed: filecheck.Names(), MaxBytes: 20 << 20, MaxImagePixels: 100_000_000})
			var got filecheck.Kind
			if fe != nil {
				got = fe.Kind
				t.Logf("%s: %s", fe.Kind, fe.Detail)
			}
			if got != c.want {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
}
