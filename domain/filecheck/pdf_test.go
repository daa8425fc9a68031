package filecheck

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"hash/adler32"
	"strings"
	"testing"
	"time"
)

func TestPDFAccepted(t *testing.T) {
	updated := scannedPDF(64)
	updated.obj(7, "<< /Producer (Adobe Acrobat Pro 2024) /ModDate (D:20261121090000-05'00') >>")
	updated.obj(8, "<< /Type /Annot /Subtype /Text /Rect [ 10 10 30 30 ] /Contents (Revisado \\(OK\\)) /F 4 >>")
	updated.xref(" /Root 1 0 R /Info 7 0 R")
	updated.obj(3, "<< /Type /Page /Parent 2 0 R /MediaBox [ 0 0 612 792 ] /Annots [ 8 0 R ] /Contents 4 0 R >>")
	updated.xref(" /Root 1 0 R /Info 7 0 R")
	inData := randomBytes(300<<10, 5)
	copy(inData[1000:], "/JS ")
	copy(inData[200<<10:], "<</JS(x)>>")
	for name, pdf := range map[string][]byte{
		"scanned page, XMP metadata":                scannedPDF(64).bytes(),
		"scanned page of 700 KB":                    scannedPDF(600).bytes(),
		"two incremental updates":                   updated.bytes(),
		"bytes after the last %%EOF":                append(scannedPDF(64).bytes(), append([]byte("\r\n"), make([]byte, 1000)...)...),
		"linearized":                                linearizedPDF(),
		"object and xref streams":                   objStmPDF(""),
		"names that only look active":               onePagePDF(" /JSON 1 /JavaScripts 2 /EmbeddedFile3 3 /JS2 4 /XFAForm 5 /LaunchDate (2026) /Title (JavaScript /JSX) /J#53ON 6"),
		"/JS spelled by a stream's compressed data": pdfWithStream(" /Filter /FlateDecode", inData),
		"the test fixture of other packages":        benchPDF(200 << 10),
		"stream keyword at the end of a line":       pdfWithStream(" /Subtype /XML", []byte("<a>stream\n</a>")),
		"outlines, then a font":                     outlinedPDF(""),
		"an unbalanced parenthesis before them":     outlinedPDF("garbage ( between objects\n"),
	} {
		t.Run(name, func(t *testing.T) {
			if code := fileKind(t, pdf, testLimits()); code != accepted {
				t.Fatalf("refused with %s", code)
			}
		})
	}
}

func TestPDFActiveContent(t *testing.T) {
	raw := func(data []byte) []byte {
		var b bytes.Buffer
		fw, _ := flate.NewWriter(&b, 9)
		fw.Write(data)
		fw.Close()
		return b.Bytes()
	}
	objStm := func(dict string, data []byte) []byte { return pdfWithStream(" /Type /ObjStm /N 1 /First 4"+dict, data) }
	// A zlib stream whose first block is stored (bytes as they are) and
	// spells a keyword, and whose second, compressed, holds a script.
	storedThen := func(stored string) []byte {
		hidden := []byte("1 0 << /S /JavaScript /JS (app.alert\\(1\\)) >>")
		b := []byte{0x78, 0x01, 0x00} // zlib header; a stored block, not the last
		b = binary.LittleEndian.AppendUint16(b, uint16(len(stored)))
		b = binary.LittleEndian.AppendUint16(b, ^uint16(len(stored)))
		b = append(b, stored...)
		b = append(b, raw(hidden)...)
		return binary.BigEndian.AppendUint32(b, adler32.Checksum(append([]byte(stored), hidden...)))
	}
	nested := "\n9 0 obj\n<< /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode >>\nstream\r\n" + string(deflate([]byte("1 0 << /JS (x) >>"))) + "\r\nendstream\n"
	js := deflate([]byte("1 0 << /S /JavaScript /JS (app.alert\\(1\\)) >>"))
	hidden := onePagePDF("", "<< /Length 80 >>\nstream\n9 0 obj << /S /JavaScript /JS (app.alert\\(1\\)) >> endobj\nendstream")
	for name, pdf := range map[string][]byte{
		"JavaScript open action":            onePagePDF(" /OpenAction 4 0 R", "<< /S /JavaScript /JS (app.alert\\(1\\)) >>"),
		"/JS alone":                         onePagePDF(" /AA << /O << /JS 4 0 R >> >>"),
		"#xx escape":                        onePagePDF(" /OpenAction << /S /J#61vaScript /JS (x) >>"),
		"all escaped, lower-case hex":       onePagePDF(" /OpenAction << /#4a#53 (x) >>"),
		"Launch":                            onePagePDF(" /OpenAction << /S /Launch /F (cmd.exe) >>"),
		"EmbeddedFile":                      onePagePDF("", "<< /Type /EmbeddedFile /Length 0 >>"),
		"RichMedia":                         onePagePDF("", "<< /Type /Annot /Subtype /RichMedia >>"),
		"XFA":                               onePagePDF(" /AcroForm << /Fields [] /XFA 4 0 R >>"),
		"Rendition, escaped":                onePagePDF("", "<< /Type /Annot /Subtype /Screen /A << /S /Rend#69tion /R 5 0 R >> >>"),
		"Sound":                             onePagePDF("", "<< /Type /Annot /Subtype /Sound /Sound 5 0 R >>"),
		"name at the very end":              append(onePagePDF(""), "/JS"...),
		"in a comment":                      onePagePDF(" % /JavaScript"),
		"object inside another's data":      hidden,
		"in a Flate object stream":          objStmPDF(" /OpenAction << /S /JavaScript /JS (app.alert\\(1\\)) >>"),
		"/JS alone in an object stream":     objStmPDF(" /AA << /O << /JS (x) >> >>"),
		"escaped in an object stream":       objStmPDF(" /OpenAction << /S /Launc#68 >>"),
		"object stream as raw deflate":      objStm(" /Filter /FlateDecode", raw([]byte("1 0 << /JS (x) >>"))),
		"object stream without filter":      objStm("", []byte("1 0 << /JS (x) >>")),
		"object stream, another filter":     objStm(" /Filter [ /ASCIIHexDecode /FlateDecode ]", []byte("78DA>")),
		"object stream abbreviated filter":  objStm(" /Filter /Fl", deflate([]byte("1 0 << /S /JavaScript >>"))),
		"endstream spelled early":           objStm(" /Filter /FlateDecode", storedThen("\r\nendstream\nendobj\n")),
		"stream spelled early":              objStm(" /Filter /FlateDecode", storedThen("\n<< >>\nstream\n")),
		"an object stream inside another":   objStm(" /Filter /FlateDecode", storedThen(nested)),
		"object stream cut short":           objStm(" /Filter /FlateDecode", deflate([]byte("1 0 << /Type /Page >>"))[:10]),
		"object stream without /Type":       pdfWithStream(" /N 1 /First 4 /Filter /FlateDecode", js),
		"obj in a string of its dict":       objStm(" /Filter /FlateDecode /X (1 0 obj)", js),
		"bare obj in its dict":              objStm(" /Filter /FlateDecode /X 1 0 obj", js),
		"obj in a comment of its dict":      objStm(" /Filter /FlateDecode % 1 0 obj\n", js),
		"stream in a string of its dict":    objStm(" /Filter /FlateDecode /X (\nstream\n)", js),
		"endstream in a string of its dict": objStm(" /Filter /FlateDecode /X (\nendstream\n)", js),
		"two Flate filters":                 objStm(" /Filter [ /FlateDecode /FlateDecode ]", deflate(js)),
		"a predictor":                       objStm(" /Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns 5 >>", js),
		"an indirect filter":                objStm(" /Filter 12 0 R", js),
	} {
		t.Run(name, func(t *testing.T) {
			if code := fileKind(t, pdf, testLimits()); code != ActiveContent {
				t.Fatalf("got %q, want %s", code, ActiveContent)
			}
		})
	}
	t.Run("allowed by the rules", func(t *testing.T) {
		rules := testLimits()
		rules.AllowPDFScripts = true
		if code := fileKind(t, objStmPDF(" /OpenAction << /S /JavaScript /JS (x) >>"), rules); code != accepted {
			t.Fatalf("refused with %s", code)
		}
		if code := fileKind(t, []byte("%PDF-1.7\n"), rules); code != Truncated {
			t.Fatalf("a truncated PDF: %q", code)
		}
	})
	t.Run("an encryption dictionary no trailer names", func(t *testing.T) {
		if code := fileKind(t, onePagePDF("", "<< /Filter /Standard /V 2 /R 3 /O <00> /U <00> /P -3904 >>"), testLimits()); code != accepted {
			t.Fatalf("refused with %s", code)
		}
	})
}

// TestPDFDeflateBombs: object streams past the bounds are refused, soon
// and without the memory their inflated size would take.
func TestPDFDeflateBombs(t *testing.T) {
	one := deflate(bytes.Repeat([]byte(" "), maxInflated+1))
	w := newPDFWriter("1.5")
	for i := range 5 {
		w.stream(i+1, " /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode", deflate(bytes.Repeat([]byte("0 0 1 "), maxInflated/5/6+1)))
	}
	w.xref("")
	big := randomBytes(maxObjStmBytes+10, 9)
	for name, pdf := range map[string][]byte{
		"one stream":                 pdfWithStream(" /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode", one),
		"five that add up":           w.bytes(),
		"compressed data over 4 MiB": pdfWithStream(" /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode", big),
		"over 10000 object streams":  onePagePDF("", strings.Repeat("<< /Type /ObjStm >>\nstream\n\nendstream\n", maxObjStms+1)),
	} {
		t.Run(name, func(t *testing.T) {
			text := base64.StdEncoding.EncodeToString(pdf)
			var before, after runtimeMem
			before.read()
			start := time.Now()
			if _, fe := Inspect(text, testLimits()); fe == nil || fe.Kind != ActiveContent {
				t.Fatalf("got %+v, want %s", fe, ActiveContent)
			}
			after.read()
			t.Logf("%d bytes of PDF: %v, %d KiB allocated", len(pdf), time.Since(start), (after.alloc-before.alloc)>>10)
			if after.alloc-before.alloc > maxObjStmBytes+8<<20 {
				t.Fatalf("allocated %d bytes", after.alloc-before.alloc)
			}
		})
	}
}

// TestPDFNamesAcrossBlocks: a name, escaped or not, and the stream
// keyword of an object stream, cut at every place by a block boundary
// of the decoder (and the 64 KiB boundary of the old one), are read
// whole; a harmless name cut there does not become an active one.
func TestPDFNamesAcrossBlocks(t *testing.T) {
	filler := benchPDF(3*decodedChunk + 4096)
	for _, boundary := range []int{64 << 10, decodedChunk, 2 * decodedChunk} {
		for shift := -16; shift <= 2; shift++ {
			at := boundary + shift
			for _, tt := range []struct {
				name string
				code Kind
			}{
				{" /J#61vaScript ", ActiveContent},
				{" /#4A#53\n", ActiveContent},
				{" /RichMedia>", ActiveContent},
				{" /JSON ", accepted},
				{" /XFAX ", accepted},
			} {
				pdf := bytes.Clone(filler)
				copy(pdf[at:], tt.name)
				if code := blockKind(pdf); code != tt.code {
					t.Fatalf("%q at %d: got %q, want %q", tt.name, at, code, tt.code)
				}
			}
		}
		// An object stream whose keyword "stream" crosses the boundary,
		// and whose compressed data spans two blocks.
		payload := append(randomBytes(decodedChunk/2, 4), " /OpenAction << /S /JavaScript >>"...)
		obj := fmt.Sprintf("9 0 obj\n<< /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode >>\nstream\r\n%s\r\nendstream\nendobj\n", deflate(payload))
		for shift := -8; shift <= 2; shift++ {
			pdf := bytes.Clone(filler)
			start := boundary + shift - strings.Index(obj, "stream\r\n")
			copy(pdf[start:], obj)
			if code := blockKind(pdf); code != ActiveContent {
				t.Fatalf("object stream keyword at %d: got %q", boundary+shift, code)
			}
		}
	}
}

// blockKind is the Kind of data checked in the decoder's own blocks.
func blockKind(data []byte) Kind {
	_, fe := Inspect(base64.StdEncoding.EncodeToString(data), testLimits())
	return kindOf(fe)
}

func TestPDFTruncated(t *testing.T) {
	whole := scannedPDF(64).bytes()
	for name, pdf := range map[string][]byte{
		"only the signature":            []byte("%PDF-"),
		"cut in half":                   whole[:len(whole)/2],
		"cut inside %%EOF":              whole[:len(whole)-3],
		"over 1 KiB after the last EOF": append(bytes.Clone(whole), make([]byte, 1100)...),
		"cut in a large scanned page":   scannedPDF(600).bytes()[:300<<10],
	} {
		t.Run(name, func(t *testing.T) {
			if code := fileKind(t, pdf, testLimits()); code != Truncated {
				t.Fatalf("got %q, want %s", code, Truncated)
			}
		})
	}
}

// TestTinyPDFs: a PDF shorter than the 16 bytes typing needs is checked
// whole, however its bytes arrive: its %%EOF counts.
func TestTinyPDFs(t *testing.T) {
	for s, want := range map[string]Kind{
		"%PDF-1.4\n%%EOF": accepted, "%PDF-1.4\n%%EOF\n": accepted, "%PDF-\n%%EOF": accepted,
		"%PDF-": Truncated, "%PDF-1.4\n%%EO": Truncated,
	} {
		for _, chunk := range []int{3, 6, decodedChunk} {
			_, fe := inspectIn(base64.StdEncoding.EncodeToString([]byte(s)), testLimits(), chunk, &work{})
			if got := kindOf(fe); got != want {
				t.Errorf("%q in blocks of %d: %q, want %q", s, chunk, got, want)
			}
		}
	}
}
