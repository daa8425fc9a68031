package filecheck

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"hash/adler32"
	"strings"
	"testing"
)

// zlibStored is a zlib stream whose first block is stored (its bytes as
// they are: stored) and whose second is compressed (rest).
func zlibStored(stored, rest string) []byte {
	b := []byte{0x78, 0x01, 0x00}
	b = binary.LittleEndian.AppendUint16(b, uint16(len(stored)))
	b = binary.LittleEndian.AppendUint16(b, ^uint16(len(stored)))
	b = append(b, stored...)
	var fb bytes.Buffer
	fw, _ := flate.NewWriter(&fb, 9)
	fw.Write([]byte(rest))
	fw.Close()
	b = append(b, fb.Bytes()...)
	return binary.BigEndian.AppendUint32(b, adler32.Checksum([]byte(stored+rest)))
}

// TestPDFUncompressedData (issue 32, finding 14): the bytes of a stream
// that are not compressed are searched for markers as text: a stream
// without /Filter, an XMP metadata stream, a FlateDecode stream's stored
// block, and what follows its data's end; the same markers compressed
// pass, and a real XMP packet passes. pdf.js and qpdf open each refused
// file as a PDF (it is one), and the marker is in its bytes as written.
func TestPDFUncompressedData(t *testing.T) {
	php := "<?php system($_GET['c']); ?>"
	xmp := strings.Replace(xmpPacket, "<dc:format>", "<dc:format><script>alert(1)</script>", 1)
	content := "BT /F1 12 Tf 72 720 Td (Pagar\\351) Tj ET\n"
	for _, c := range []struct {
		name, want string
		pdf        []byte
	}{
		{"a stream without /Filter", "polyglot", pdfWithStream("", []byte(content+"% "+php+"\n"))},
		{"an image without /Filter", "polyglot", pdfWithStream(" /Type /XObject /Subtype /Image /Width 8 /Height 4 /ColorSpace /DeviceGray /BitsPerComponent 8", []byte(strings.Repeat("\x80", 2)+php+"\x00\x00"))},
		{"an XMP metadata stream", "polyglot", pdfWithStream(" /Type /Metadata /Subtype /XML", []byte(xmp))},
		{"a stored deflate block", "polyglot", pdfWithStream(" /Filter /FlateDecode", zlibStored("\n"+php+"\n", content))},
		{"a stored block cut by the window", "polyglot", pdfWithStream(" /Filter /FlateDecode", zlibStored(strings.Repeat(" ", 200<<10)+php, content))},
		{"bytes after the zlib stream", "polyglot", pdfWithStream(" /Filter /FlateDecode", append(deflate([]byte(content)), php...))},
		{"the same text compressed", "accepted", pdfWithStream(" /Filter /FlateDecode", deflate([]byte(content+php)))},
		{"a real XMP packet", "accepted", pdfWithStream(" /Type /Metadata /Subtype /XML", []byte(xmpPacket))},
		{"stored blocks without markers", "accepted", pdfWithStream(" /Filter /FlateDecode", zlibStored(content, content))},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got, _, _ := strings.Cut(polyglotKind(t, c.pdf, testLimits()), ":"); got != c.want {
				t.Fatalf("%s; want %s", polyglotKind(t, c.pdf, testLimits()), c.want)
			}
			if c.want != "polyglot" {
				return
			}
			if activeContent(c.pdf) == "" {
				t.Fatal("the marker is not in the file's bytes")
			}
			got := readersFind(t, c.pdf)
			for _, r := range []string{"pdf.js", "qpdf"} {
				if f := got[r]; len(f) > 0 && strings.HasPrefix(f[0], "error: ") {
					t.Errorf("%s does not open the file: %v", r, f)
				}
			}
		})
	}
}
