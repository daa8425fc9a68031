package filecheck

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"encoding/binary"
	"hash/adler32"
	"io"
	"strings"
	"testing"
)

// zlibStoredThen is a zlib stream whose first block is stored (its bytes as
// they are: stored) and whose second is compressed (rest).
func zlibStoredThen(stored, rest string) []byte {
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
		{"a stored deflate block", "polyglot", pdfWithStream(" /Filter /FlateDecode", zlibStoredThen("\n"+php+"\n", content))},
		{"a stored block cut by the window", "polyglot", pdfWithStream(" /Filter /FlateDecode", zlibStoredThen(strings.Repeat(" ", 200<<10)+php, content))},
		{"bytes after the zlib stream", "polyglot", pdfWithStream(" /Filter /FlateDecode", append(deflate([]byte(content)), php...))},
		{"the same text compressed", "accepted", pdfWithStream(" /Filter /FlateDecode", deflate([]byte(content+php)))},
		{"a real XMP packet", "accepted", pdfWithStream(" /Type /Metadata /Subtype /XML", []byte(xmpPacket))},
		{"stored blocks without markers", "accepted", pdfWithStream(" /Filter /FlateDecode", zlibStoredThen(content, content))},
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

// huffmanSpelling is a zlib stream of one dynamic Huffman block whose
// coded bits spell text as bytes: literals 0-254 get the 8-bit codes
// equal to themselves (255 and end-of-block 9 bits), so that a literal,
// from a byte boundary, is the byte whose bits are its own reversed. The
// stream inflates to other bytes; its compressed bytes hold text as it
// is, as compressed data does by chance (contract §10).
func huffmanSpelling(text string) []byte {
	var bits []bool
	put := func(v uint32, n int) { // LSB first
		for i := range n {
			bits = append(bits, v>>i&1 == 1)
		}
	}
	code := func(c uint32, n int) { // a Huffman code, its first bit highest
		for i := n - 1; i >= 0; i-- {
			bits = append(bits, c>>i&1 == 1)
		}
	}
	put(1, 1)  // BFINAL
	put(2, 2)  // dynamic
	put(0, 5)  // 257 literal/length codes
	put(0, 5)  // 1 distance code
	put(15, 4) // all 19 code-length code lengths (16 17 18 0 8 7 9 6 …), as zlib often writes them
	for _, l := range []uint32{2, 0, 0, 2, 2, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0} {
		put(l, 3)
	}
	clen := map[int]uint32{0: 0, 8: 1, 9: 2} // length-2 codes, canonical
	for range 255 {
		code(clen[8], 2)
	}
	code(clen[9], 2) // 255
	code(clen[9], 2) // end of block
	code(clen[0], 2) // the distance code, unused
	var out []byte   // what it inflates to
	for len(bits)%8 != 0 {
		code(0x1FE, 9) // literal 255, 9 bits: to the next byte boundary
		out = append(out, 255)
	}
	for _, c := range []byte(text) {
		var r uint32
		for i := range 8 {
			r |= uint32(c>>i&1) << (7 - i)
		}
		code(r, 8) // the literal that is c reversed
		out = append(out, byte(r))
	}
	code(0x1FF, 9) // end of block
	z := []byte{0x78, 0x01}
	for i := 0; i < len(bits); i += 8 {
		var b byte
		for j := 0; j < 8 && i+j < len(bits); j++ {
			if bits[i+j] {
				b |= 1 << j
			}
		}
		z = append(z, b)
	}
	return binary.BigEndian.AppendUint32(z, adler32.Checksum(out))
}

// TestPDFMarkersSpelledByChance: a FlateDecode stream whose Huffman-coded
// bytes spell markers passes (the walk finds them in coded bits), as
// does a stream without markers; the same markers in a stored block, in
// the dictionary before the stream, or in a second stream's stored
// block after such a first one, are refused.
func TestPDFMarkersSpelledByChance(t *testing.T) {
	spelled := huffmanSpelling("x<?= <svg <script>x")
	if !bytes.Contains(spelled, []byte("<?= <svg <script>")) || !zlibReads(spelled) {
		t.Fatalf("the stream does not spell its markers, or zlib cannot read it: %q", spelled)
	}
	two := newPDFWriter("1.7")
	two.obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
	two.obj(2, "<< /Type /Pages /Kids [] /Count 0 >>")
	two.stream(3, " /Filter /FlateDecode", spelled)
	two.stream(4, " /Filter /FlateDecode", zlibStoredThen("<?php", "hola"))
	two.xref(" /Root 1 0 R")
	for _, c := range []struct {
		name, want string
		pdf        []byte
	}{
		{"spelled by Huffman codes", "accepted", pdfWithStream(" /Filter /FlateDecode", spelled)},
		{"then a stored block in another stream", "polyglot", two.bytes()},
		{"in the dictionary before it", "polyglot", pdfWithStream(" /Filter /FlateDecode /Title (<?php ?>)", spelled)},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got, _, _ := strings.Cut(polyglotKind(t, c.pdf, testLimits()), ":"); got != c.want {
				t.Fatalf("%s; want %s", polyglotKind(t, c.pdf, testLimits()), c.want)
			}
		})
	}
}

// zlibReads reports whether compress/zlib reads z whole, checksum
// included, with nothing after it.
func zlibReads(z []byte) bool {
	br := bytes.NewReader(z)
	zr, err := zlib.NewReader(br)
	if err != nil {
		return false
	}
	_, err = io.Copy(io.Discard, zr)
	return err == nil && br.Len() == 0
}
