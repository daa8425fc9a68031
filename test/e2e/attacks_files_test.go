package e2e

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/testkit"
)

// realisticPDF is a one-page PDF as office tools write it: an XMP
// metadata stream, an incremental update (a second xref and %%EOF) and a
// few bytes after the last %%EOF. extra goes into the catalog.
func realisticPDF(extra string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
	xmp := `<?xpacket begin="\xef\xbb\xbf" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Pagaré</dc:title></rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>`
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R /Metadata 4 0 R " + extra + " >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>",
		fmt.Sprintf("<< /Type /Metadata /Subtype /XML /Length %d >>\nstream\n%s\nendstream", len(xmp), xmp),
	}
	var offsets []int
	for i, o := range objs {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	// An incremental update: the page again, a second xref, a second %%EOF.
	upd := b.Len()
	b.WriteString("3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>\nendobj\n")
	xref2 := b.Len()
	fmt.Fprintf(&b, "xref\n3 1\n%010d 00000 n \ntrailer\n<< /Size %d /Root 1 0 R /Prev %d >>\nstartxref\n%d\n%%%%EOF\n", upd, len(objs)+1, xref, xref2)
	b.WriteString("\r\n\x00\x00 trailing bytes a scanner appended\n")
	return b.Bytes()
}

// pngOfSize is a real PNG whose header then declares width×height.
func pngOfSize(width, height uint32) []byte {
	var b bytes.Buffer
	_ = png.Encode(&b, image.NewGray(image.Rect(0, 0, 1, 1)))
	p := b.Bytes()
	binary.BigEndian.PutUint32(p[16:], width)
	binary.BigEndian.PutUint32(p[20:], height)
	binary.BigEndian.PutUint32(p[29:], crc32.ChecksumIEEE(p[12:29]))
	return p
}

// TestAttackHostileFiles: active PDF content (also written with #xx
// escapes), an image declaring 100000×100000 pixels and files that stop
// after their signature are refused with their own code; a real-world
// PDF (XMP, incremental update, bytes after %%EOF) is stored.
func TestAttackHostileFiles(t *testing.T) {
	t.Parallel()
	in := testkit.MustStart(t)
	in.AddUser(t, testkit.Partner, testkit.Nit, testkit.Password)
	tok := in.Token(t, testkit.Partner, testkit.Password)
	var whole bytes.Buffer
	_ = png.Encode(&whole, image.NewGray(image.Rect(0, 0, 4, 4)))
	for i, tt := range []struct {
		name string
		file []byte
		code string
	}{
		{"PDF with an OpenAction JavaScript", realisticPDF("/OpenAction << /S /JavaScript /JS (app.alert(1)) >>"), "file_active_content"},
		{"PDF with a Launch action", realisticPDF("/OpenAction << /S /Launch /F (cmd.exe) >>"), "file_active_content"},
		{"PDF with #xx escapes", realisticPDF("/OpenAction << /S /J#61vaScript /J#53 (x) >>"), "file_active_content"},
		{"PNG declaring 100000x100000", pngOfSize(100000, 100000), "file_image_too_large"},
		{"PNG declaring a width of 0", pngOfSize(0, 10), "file_image_too_large"},
		{"only %PDF-", []byte("%PDF-"), "file_truncated"},
		{"PNG cut before IEND", whole.Bytes()[:whole.Len()-12], "file_truncated"},
		{"real-world PDF", realisticPDF(""), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			body := fixture.Minimal(time.Now(), fmt.Sprintf("CR-FILE-%d", i))
			body["Documento Soporte"] = map[string]any{"Base64String": base64.StdEncoding.EncodeToString(tt.file)}
			r := in.Report(t, tok, testkit.MustJSON(body))
			if tt.code == "" {
				if r.Status != 200 {
					t.Fatalf("%d %s", r.Status, r.Raw)
				}
				return
			}
			if r.Status != 400 || !strings.Contains(string(r.Raw), `"code":"`+tt.code+`"`) {
				t.Fatalf("%d %s; want 400 with %s", r.Status, r.Raw, tt.code)
			}
		})
	}
	t.Run("scripts allowed by setting", func(t *testing.T) {
		in := testkit.MustStart(t, func(c *config.Config) { c.Uploads.AllowPDFScripts = true })
		in.AddUser(t, testkit.Partner, testkit.Nit, testkit.Password)
		body := fixture.Minimal(time.Now(), "CR-FILE-JS")
		body["Documento Soporte"] = map[string]any{"Base64String": base64.StdEncoding.EncodeToString(realisticPDF("/OpenAction << /S /JavaScript /JS (x) >>"))}
		if r := in.Report(t, in.Token(t, testkit.Partner, testkit.Password), testkit.MustJSON(body)); r.Status != 200 {
			t.Fatalf("uploads.allow_pdf_scripts: %d %s", r.Status, r.Raw)
		}
	})
}

// TestAttackUploadsDiskFullAndReplaced: /readyz fails while the upload
// directory has less than uploads.min_free_bytes free, and when the
// directory was replaced under the running service; then the service
// reopens it, and files go to the new directory, not the old one.
func TestAttackUploadsDiskFullAndReplaced(t *testing.T) {
	t.Parallel()
	t.Run("disk full", func(t *testing.T) {
		in := testkit.MustStart(t, func(c *config.Config) { c.Uploads.MinFreeBytes = 1 << 60 })
		r := testkit.Call(t, "GET", in.URL+"/readyz", nil, nil)
		if r.Status != 503 || testkit.Dig(r.Body, "checks", "uploads") != "fail" {
			t.Fatalf("/readyz with too little free space: %d %s", r.Status, r.Raw)
		}
	})
	t.Run("directory replaced", func(t *testing.T) {
		in := testkit.MustStart(t)
		in.AddUser(t, testkit.Partner, testkit.Nit, testkit.Password)
		tok := in.Token(t, testkit.Partner, testkit.Password)
		dir := in.Config.Uploads.Dir
		replace := func(to string) {
			t.Helper()
			if err := os.Rename(dir, to); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(dir, 0o750); err != nil {
				t.Fatal(err)
			}
		}
		if r := testkit.Call(t, "GET", in.URL+"/readyz", nil, nil); r.Status != 200 {
			t.Fatalf("/readyz before: %d %s", r.Status, r.Raw)
		}
		// A report right after the replacement, before any probe, goes to
		// the new directory.
		replace(dir + ".old1")
		r := in.Report(t, tok, testkit.MustJSON(fixture.FullBody(time.Now(), "CR-REPLACED-1", fixture.PDF(2000))))
		if r.Status != 200 {
			t.Fatalf("report: %d %s", r.Status, r.Raw)
		}
		name := r.Body["file"].(string)
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("the file is not in the new directory: %v", err)
		}
		if _, err := os.Stat(filepath.Join(dir+".old1", name)); err == nil {
			t.Error("the file went to the replaced directory")
		}
		// The readiness probe tells of a replacement once, then reopens.
		replace(dir + ".old2")
		if r := testkit.Call(t, "GET", in.URL+"/readyz", nil, nil); r.Status != 503 || testkit.Dig(r.Body, "checks", "uploads") != "fail" {
			t.Fatalf("/readyz after the directory was replaced: %d %s", r.Status, r.Raw)
		}
		if r := testkit.Call(t, "GET", in.URL+"/readyz", nil, nil); r.Status != 200 {
			t.Fatalf("/readyz once reopened: %d %s", r.Status, r.Raw)
		}
	})
}
