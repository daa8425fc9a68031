package filecheck

import (
	"bytes"
	"strings"
	"testing"
)

// TestPDFBeforeHeader (issue 32, finding 8): before %PDF- only what
// print workflows write may come (white space, % comment lines, PJL,
// lines of printable ASCII text); markup without a listed marker, as the
// HTML that Chromium ran, '<' anywhere, and binary are refused. pdf.js, MuPDF and qpdf open each refused file
// as the PDF it also is.
func TestPDFBeforeHeader(t *testing.T) {
	pdf := onePagePDF("")
	pjl := "\x1b%-12345X@PJL JOB NAME=\"pagare\"\r\n@PJL SET DUPLEX=ON\r\n@PJL ENTER LANGUAGE=PDF\r\n"
	for _, c := range []struct {
		name, prefix, want string
	}{
		{"white space", " \r\n\t\n", "accepted"},
		{"PostScript and spooler comments", "%!PS-Adobe-3.0\n%%Title: pagare\r%%Creator: lpr\n", "accepted"},
		{"PJL", pjl, "accepted"},
		{"a KiB of comments", strings.Repeat("%"+strings.Repeat(" ", 62)+"\n", pdfHeaderWithin/64), "accepted"},
		{"HTML without a listed marker", "<p><img src=x onerror=alert(document.domain)>\n", "type_refused"},
		{"markup in a comment line", "% <a href=x>\n", "type_refused"},
		{"a line of text (the PDF 2.0 examples' prefix)", "# A PDF processor may encounter data before the PDF header.\r\n", "accepted"},
		{"text after a comment, on a line of its own", "%!PS\rcalc.exe\n", "accepted"},
		{"a control byte in a line", "job\x00name\n", "type_refused"},
		{"a byte above ASCII", "trabajo \xe9\n", "type_refused"},
		{"a UTF-8 byte order mark", "\xEF\xBB\xBF", "type_refused"},
		{"PHP", "<?php system($_GET['c']); ?>\n", "polyglot"},
	} {
		t.Run(c.name, func(t *testing.T) {
			file := append([]byte(c.prefix), pdf...)
			got, _, _ := strings.Cut(polyglotKind(t, file, testLimits()), ":")
			if got != c.want {
				t.Fatalf("%s; want %s", polyglotKind(t, file, testLimits()), c.want)
			}
			if c.name == "HTML without a listed marker" {
				for r, found := range readersFind(t, file) {
					if len(found) > 0 && strings.HasPrefix(found[0], "error: ") {
						t.Errorf("%s does not open the file as a PDF: %v", r, found)
					}
				}
			}
		})
	}
	// The header further in than a KiB is no PDF's, as before.
	far := append(bytes.Repeat([]byte("%\n"), pdfHeaderWithin/2+1), pdf...)
	if got := polyglotKind(t, far, testLimits()); !strings.HasPrefix(got, "type_refused") {
		t.Fatalf("a header past a KiB: %s", got)
	}
}
