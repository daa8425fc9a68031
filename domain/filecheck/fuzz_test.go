package filecheck

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"io"
	"slices"
	"testing"
)

// FuzzParseFile: any Base64String and declared extension. An accepted file
// is of an allowed type by its content, carries no active content, and is
// within the size limit. The declared extension picks the block size of
// the second inspection, and is canonicalised as domain's FileDto
// mapping does: a name it maps to is a known type's, and maps to itself.
func FuzzParseFile(f *testing.F) {
	f.Add(base64.StdEncoding.EncodeToString([]byte("%PDF-1.4\n%%EOF")), "pdf")
	f.Add("data:application/pdf;base64,JVBERi0xLjQK", "")
	f.Add(base64.StdEncoding.EncodeToString([]byte("%PDF-1.4 <?php echo 1; ?>")), "pdf")
	f.Add("iVBORw0KGgo=", "png")
	f.Add("JVBERi0\r\nxLjQ=", "PDF")
	f.Add("!!!!", "")
	for _, seed := range [][]byte{
		onePagePDF(" /OpenAction << /S /J#61vaScript >>"), objStmPDF(""), objStmPDF(" /AA << /O << /JS (x) >> >>"),
		goPNG(4, 3), noiseJPEG(8, 8, 1), handTIFF(binary.LittleEndian, 4, 3, false, true), handTIFF(binary.BigEndian, 4, 3, true, false),
		greyPNG(8, 8, mixedZlib(greyRows(8, 8), []byte("stored")), pngChunk("eXIf", exifTIFF(binary.BigEndian, []tField{tASCII(271, "Canon")}, nil))),
		exifTIFFImage(binary.LittleEndian, tBytes(0x9C9C, 1, ucs2("Escáner"))),
		greyTIFF(binary.BigEndian, 8, 8, 8, compressed(greyRows(8, 8)[:64], 6)),
	} {
		f.Add(base64.StdEncoding.EncodeToString(seed), "")
	}
	rules := Limits{Allowed: Names(), MaxBytes: 1 << 16, MaxImagePixels: 100_000_000}
	f.Fuzz(func(t *testing.T, b64, ext string) {
		if c, ok := Canonical(ext); ok {
			if again, ok := Canonical(c); !ok || again != c || !slices.Contains(Names(), c) {
				t.Fatalf("Canonical(%q) = %q, which is not a type's name", ext, c)
			}
		}
		// Where block boundaries fall never changes the outcome (but for
		// which of two problems is found first when one is bad base64: a
		// block is decoded whole before its bytes are checked).
		file, big := Inspect(b64, rules)
		_, small := inspectIn(b64, rules, 3*(1+len(ext)%40), &work{})
		if (big == nil) != (small == nil) || big != nil && *big != *small && big.Kind != Undecodable && small.Kind != Undecodable {
			t.Fatalf("in one block: %+v; in blocks of %d bytes: %+v", big, 3*(1+len(ext)%40), small)
		}
		if big != nil {
			if big.Kind == accepted || big.Detail == "" || file != nil {
				t.Fatalf("finding without kind or detail, or with content: %+v", big)
			}
			return
		}
		data, err := io.ReadAll(file.Reader())
		if err != nil || int64(len(data)) != file.Size || sha256.Sum256(data) != file.SHA256 {
			t.Fatalf("Reader gives %d bytes (%v), inspected %d", len(data), err, file.Size)
		}
		if t2, ok, _ := sniff(data, true); !ok || t2.ext != file.Ext || !slices.Contains(rules.Allowed, file.Ext) {
			t.Fatalf("accepted a file of type %q not allowed by content", file.Ext)
		}
		if int64(len(data)) > rules.MaxBytes {
			t.Fatal("accepted an oversized file")
		}
		for _, text := range plainText(file.Ext, data) {
			if m := activeContent(text); m != "" {
				t.Fatalf("accepted %s where a reader takes the bytes as text", m)
			}
		}
		checkAccepted(t, file.Ext, data)
	})
}

// plainText returns stretches of data that are text by contract §10 and
// are found by plain searches, without walking the file as the checks do:
// a PDF without the word "stream" whole, and what follows the last
// %%EOF; a PNG's tEXt chunks and what follows the last IEND chunk; what
// follows a JPEG's last FFD9.
func plainText(ext string, data []byte) [][]byte {
	var texts [][]byte
	after := func(sep string, skip int) {
		if i := bytes.LastIndex(data, []byte(sep)); i >= 0 && i+len(sep)+skip <= len(data) {
			texts = append(texts, data[i+len(sep)+skip:])
		}
	}
	switch ext {
	case "pdf":
		if !bytes.Contains(data, []byte("stream")) {
			texts = append(texts, data)
		}
		after("%%EOF", 0)
	case "png":
		for i := 8; i+8 <= len(data); {
			n := int(binary.BigEndian.Uint32(data[i:]))
			if n < 0 || n > len(data)-i-12 {
				break
			}
			if string(data[i+4:i+8]) == "tEXt" {
				texts = append(texts, data[i+8:i+8+n])
			}
			i += 12 + n
		}
		after("IEND", 4)
	case "jpg":
		after("\xFF\xD9", 0)
	}
	return texts
}

// checkAccepted fails when an accepted file shows, by a plain search, what
// contract §7 refuses: an active PDF name written without escapes (of
// those that count even inside stream data), a PDF without %%EOF at its
// end, a PNG without IEND, a JPEG without FFD9.
func checkAccepted(t *testing.T, ext string, data []byte) {
	t.Helper()
	switch ext {
	case "pdf":
		if !bytes.Contains(data[max(0, len(data)-pdfTail):], []byte("%%EOF")) {
			t.Fatal("accepted a PDF without an end-of-file marker at its end")
		}
		for _, name := range []string{"/JavaScript", "/Launch", "/EmbeddedFile", "/EmbeddedFiles", "/FileAttachment", "/RichMedia", "/XFA", "/Rendition", "/Sound"} {
			for i := bytes.Index(data, []byte(name)); i >= 0; {
				if end := i + len(name); end == len(data) || pdfEnds(data[end]) {
					t.Fatalf("accepted a PDF with %s", name)
				}
				j := bytes.Index(data[i+1:], []byte(name))
				if j < 0 {
					break
				}
				i += 1 + j
			}
		}
	case "png":
		if !bytes.Contains(data, []byte("IEND")) {
			t.Fatal("accepted a PNG without IEND")
		}
	case "jpg":
		if !bytes.Contains(data, []byte{0xFF, 0xD9}) {
			t.Fatal("accepted a JPEG without FFD9")
		}
	}
}
