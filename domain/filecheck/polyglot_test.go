package filecheck

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"image"
	"image/png"
	"strings"
	"testing"
)

// Files for contract §10: markers where a reader takes bytes as text, and
// the same markers in compressed or entropy-coded data.

// withPNGChunk puts chunk right after p's IHDR.
func withPNGChunk(p, chunk []byte) []byte {
	return append(append(bytes.Clone(p[:33]), chunk...), p[33:]...)
}

// storedPNG is a grey PNG written without compression, so that its IDAT
// holds the pixel bytes, text spelled in them included, as they are.
func storedPNG(text string) []byte {
	img := image.NewGray(image.Rect(0, 0, 64, 4))
	for i := range img.Pix {
		img.Pix[i] = text[i%len(text)]
	}
	var b bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.NoCompression}).Encode(&b, img); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// withJPEGSegment puts the segment marker m with payload right after SOI.
func withJPEGSegment(j []byte, m byte, payload string) []byte {
	seg := binary.BigEndian.AppendUint16([]byte{0xFF, m}, uint16(len(payload)+2))
	return append(append(append([]byte{}, j[:2]...), append(seg, payload...)...), j[2:]...)
}

// inJPEGScan writes text into the first scan's entropy-coded data.
func inJPEGScan(j []byte, text string) []byte {
	j = bytes.Clone(j)
	for i := 2; i+4 <= len(j); i += 2 + int(binary.BigEndian.Uint16(j[i+2:])) {
		if j[i+1] == 0xDA {
			copy(j[i+2+int(binary.BigEndian.Uint16(j[i+2:]))+100:], text)
			return j
		}
	}
	panic("no scan")
}

// exifAPP1 is an EXIF payload whose IFD0 has one ASCII entry, Make.
func exifAPP1(make string) string {
	var b []byte
	b = append(b, "Exif\x00\x00MM\x00*\x00\x00\x00\x08"...)
	b = binary.BigEndian.AppendUint16(b, 1)
	b = binary.BigEndian.AppendUint16(binary.BigEndian.AppendUint16(b, 271), 2)
	b = binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(b, uint32(len(make)+1)), 8+2+12+4)
	b = binary.BigEndian.AppendUint32(b, 0)
	return string(append(append(b, make...), 0))
}

// textTIFF is a grey TIFF as libtiff lays one out: the text its
// directories name first, then the pixels, then IFD0 (Software, ASCII)
// and an EXIF directory (DateTimeOriginal, ASCII). A Software value of
// at most 3 bytes sits in its entry itself.
func textTIFF(software, taken string, pixels []byte) []byte {
	o := binary.LittleEndian
	b := []byte("II*\x00\x00\x00\x00\x00")
	swAt := len(b)
	b = append(append(b, software...), 0)
	takenAt := len(b)
	b = append(append(b, taken...), 0)
	pixAt := len(b)
	b = append(b, pixels...)
	type entry struct {
		tag, typ uint16
		count    int
		v        uint32
	}
	ifd := func(at int, es []entry) []byte {
		d := o.AppendUint16(nil, uint16(len(es)))
		for _, e := range es {
			d = o.AppendUint32(o.AppendUint16(o.AppendUint16(d, e.tag), e.typ), uint32(e.count))
			d = o.AppendUint32(d, e.v)
		}
		return o.AppendUint32(d, 0)
	}
	const n0 = 11
	ifd0At := len(b)
	exifAt := ifd0At + 2 + n0*12 + 4
	sw := entry{305, 2, len(software) + 1, uint32(swAt)}
	if len(software) < 4 {
		var v [4]byte
		copy(v[:], software)
		sw.v = o.Uint32(v[:])
	}
	b = append(b, ifd(ifd0At, []entry{
		{256, 4, 1, 256}, {257, 4, 1, uint32(len(pixels) / 256)}, {258, 3, 1, 8}, {259, 3, 1, 1}, {262, 3, 1, 1},
		{273, 4, 1, uint32(pixAt)}, {277, 3, 1, 1}, {278, 4, 1, uint32(len(pixels) / 256)}, {279, 4, 1, uint32(len(pixels))},
		sw, {tagExifIFD, 4, 1, uint32(exifAt)},
	})...)
	b = append(b, ifd(exifAt, []entry{{36867, 2, len(taken) + 1, uint32(takenAt)}})...)
	o.PutUint32(b[4:], uint32(ifd0At))
	return b
}

// textPixels are size bytes of image data that spell every marker.
func textPixels(size int) []byte {
	p := randomBytes(size, 5)
	for i, m := range activeMarkers {
		copy(p[(i+1)*size/(len(activeMarkers)+2):], m)
	}
	return p
}

// polyglotKind is the outcome of inspecting data sent as one line and in
// MIME lines, in blocks of the service's size and of 111 bytes (so that
// a boundary falls inside every marker and header), all of which must
// agree; a refusal for active content is told apart from other refusals
// of TypeRefused.
func polyglotKind(t *testing.T, data []byte, rules Limits) string {
	t.Helper()
	text := base64.StdEncoding.EncodeToString(data)
	var got []string
	for _, in := range []string{text, wrap76(text)} {
		for _, chunk := range []int{decodedChunk, 111} {
			_, fe := inspectIn(in, rules, chunk, &work{})
			switch {
			case fe == nil:
				got = append(got, "accepted")
			case fe.Kind == TypeRefused && strings.Contains(fe.Detail, "contenido activo"):
				got = append(got, "polyglot")
			default:
				got = append(got, fe.Kind.String()+": "+fe.Detail)
			}
		}
	}
	for _, g := range got[1:] {
		if g != got[0] {
			t.Fatalf("outcomes differ with the blocks: %q", got)
		}
	}
	return got[0]
}

func TestPolyglots(t *testing.T) {
	jpg, pngFile := noiseJPEG(320, 240, 8), goPNG(64, 48)
	openStream := append(onePagePDF(""), "9 0 obj\n<< /Length 99 >>\nstream\nxx\n%%EOF\n<?php system($_GET['c']); ?>"...)
	scripts := testLimits()
	scripts.AllowPDFScripts = true
	big := textPixels(3 << 20) // several blocks: the TIFF is read again from its text
	for _, tt := range []struct {
		name  string
		file  []byte
		rules Limits
		want  string
	}{
		{"JPEG comment", withJPEGSegment(jpg, 0xFE, "<?php system($_GET['c']); ?>"), testLimits(), "polyglot"},
		{"JPEG EXIF field", withJPEGSegment(jpg, 0xE1, exifAPP1("<script>alert(1)</script>")), testLimits(), "polyglot"},
		{"JPEG APP13", withJPEGSegment(jpg, 0xED, "Photoshop 3.0\x00<SVG onload=x>"), testLimits(), "polyglot"},
		{"JPEG after EOI", append(bytes.Clone(jpg), "<?= `id` ?>"...), testLimits(), "polyglot"},
		{"JPEG marker in its scan", inJPEGScan(jpg, "<?= x <script>"), testLimits(), "accepted"},
		{"JPEG EXIF without markers", withJPEGSegment(jpg, 0xE1, exifAPP1("Canon")), testLimits(), "accepted"},
		{"PNG tEXt", withPNGChunk(pngFile, pngChunk("tEXt", []byte("Comment\x00<?php echo 1; ?>"))), testLimits(), "polyglot"},
		{"PNG zTXt, compressed", withPNGChunk(pngFile, pngChunk("zTXt", append([]byte("Comment\x00\x00"), deflate([]byte(strings.Repeat("a", 70000)+"<iframe src=x>"))...))), testLimits(), "polyglot"},
		{"PNG zTXt keyword", withPNGChunk(pngFile, pngChunk("zTXt", append([]byte("<html>\x00\x00"), deflate([]byte("x"))...))), testLimits(), "polyglot"},
		{"PNG iTXt, compressed", withPNGChunk(pngFile, pngChunk("iTXt", append([]byte("XML:com.adobe.xmp\x00\x01\x00es\x00XMP\x00"), deflate([]byte("<x:xmpmeta><body onload=x>"))...))), testLimits(), "polyglot"},
		{"PNG iTXt, plain", withPNGChunk(pngFile, pngChunk("iTXt", []byte("Comment\x00\x00\x00es\x00Comentario\x00<object data=x>"))), testLimits(), "polyglot"},
		{"PNG after IEND", append(bytes.Clone(pngFile), "<svg onload=alert(1)>"...), testLimits(), "polyglot"},
		{"PNG marker in IDAT, a stored block", storedPNG("<?php echo 1; ?><script>"), testLimits(), "polyglot"},
		{"PNG of noise, IDAT compressed", noisePNG(256, 256), testLimits(), "accepted"},
		{"PNG zTXt and iTXt without markers", withPNGChunk(withPNGChunk(pngFile, pngChunk("zTXt", append([]byte("Raw profile type exif\x00\x00"), deflate([]byte("exif\n 42\n45786966"))...))), pngChunk("iTXt", append([]byte("XML:com.adobe.xmp\x00\x01\x00\x00\x00"), deflate([]byte(xmpPacket))...))), testLimits(), "accepted"},
		{"TIFF ASCII field before the pixels", textTIFF("<?php system($_GET['c']); ?>", "2026:11:20 10:15:02", textPixels(4096)), testLimits(), "polyglot"},
		{"TIFF ASCII field in the value", textTIFF("<?=", "2026:11:20 10:15:02", textPixels(4096)), testLimits(), "polyglot"},
		{"TIFF EXIF ASCII field", textTIFF("Scanner 1.0", "<script>", textPixels(4096)), testLimits(), "polyglot"},
		{"TIFF ASCII field 3 MiB before its directory", textTIFF("Scanner 1.0", "<embed src=x>", big), testLimits(), "polyglot"},
		{"TIFF markers in its strip, not compressed", textTIFF("Scanner 1.0", "2026:11:20 10:15:02", big), testLimits(), "polyglot"},
		{"TIFF markers in its strip, LZW", withTIFFCompression(textTIFF("Scanner 1.0", "2026:11:20 10:15:02", big), 5), testLimits(), "accepted"},
		{"PDF text", onePagePDF(" /Title (<script>alert(1)</script>)"), testLimits(), "polyglot"},
		{"PDF text, scripts allowed", onePagePDF(" /Title (<?php echo 1; ?>)"), scripts, "polyglot"},
		{"PDF after %%EOF, a stream left open", openStream, testLimits(), "polyglot"},
		{"PDF after %%EOF, a stream left open, scripts allowed", openStream, scripts, "polyglot"},
		{"PDF marker in another filter's data", pdfWithStream(" /Filter /LZWDecode", append(randomBytes(5000, 9), "<?= <svg <html"...)), testLimits(), "accepted"},
		{"PDF marker in FlateDecode data that does not inflate", pdfWithStream(" /Filter /FlateDecode", append(randomBytes(5000, 9), "<?= <svg <html"...)), testLimits(), "polyglot"},
		{"PDF marker in stream data, scripts allowed", pdfWithStream(" /Filter /FlateDecode", append(randomBytes(5000, 9), "<?= <svg <html"...)), scripts, "accepted"},
		{"PDF scan whose image spells markers", pdfWithStream(" /Subtype /Image /Filter /DCTDecode", inJPEGScan(jpg, "<?= <script>")), testLimits(), "accepted"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := polyglotKind(t, tt.file, tt.rules); got != tt.want {
				t.Fatalf("%s; want %s", got, tt.want)
			}
		})
	}
}

// TestBeforeSignature: a PDF's header may follow up to a KiB of comment
// lines (pdf_header_test.go says which), as viewers read it, and those
// bytes are searched; an image, or a PDF header further in, makes a file
// of no type.
func TestBeforeSignature(t *testing.T) {
	note := []byte("% A PDF processor may encounter data before the PDF header.\r\n")
	for _, tt := range []struct {
		name, want string
		file       []byte
	}{
		{"a line before %PDF", "accepted", append(bytes.Clone(note), onePagePDF("")...)},
		{"PHP before %PDF", "polyglot", append([]byte("<?php system($_GET['c']); ?>\n"), onePagePDF("")...)},
		{"a KiB before %PDF", "accepted", append(append([]byte("%"), bytes.Repeat([]byte("x"), pdfHeaderWithin-1)...), onePagePDF("")...)},
		{"more than a KiB before %PDF", "type_refused", append(append([]byte("%"), bytes.Repeat([]byte("x"), pdfHeaderWithin)...), onePagePDF("")...)},
		{"SVG before a PNG", "type_refused", append([]byte("<svg onload=x>"), goPNG(4, 4)...)},
		{"a line before a JPEG", "type_refused", append(bytes.Clone(note), noiseJPEG(8, 8, 1)...)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got, _, _ := strings.Cut(polyglotKind(t, tt.file, testLimits()), ":"); got != tt.want {
				t.Fatalf("%s; want %s", got, tt.want)
			}
		})
	}
}

// TestPNGTextBounds: compressed text that inflates past the bound, or a
// text chunk too large to hold, cannot be inspected and is refused.
func TestPNGTextBounds(t *testing.T) {
	bomb := withPNGChunk(goPNG(8, 8), pngChunk("zTXt", append([]byte("Comment\x00\x00"), deflate(make([]byte, maxPNGInflated+1))...)))
	huge := withPNGChunk(goPNG(8, 8), pngChunk("iTXt", append([]byte("Comment\x00\x00\x00\x00\x00"), make([]byte, maxPNGTextChunk)...)))
	for name, f := range map[string][]byte{"bomb": bomb, "huge": huge} {
		_, fe := Inspect(base64.StdEncoding.EncodeToString(f), testLimits())
		if fe == nil || fe.Kind != TypeRefused || !strings.Contains(fe.Detail, "no se puede inspeccionar") {
			t.Errorf("%s: %+v", name, fe)
		}
	}
}

// TestTIFFBounds: directories that point at each other cannot be read
// whole, and are refused (fail closed); TestWorkBound shows values that
// name the same megabytes again and again.
func TestTIFFBounds(t *testing.T) {
	loop := textTIFF("Scanner 1.0", "2026", textPixels(4096))
	o := binary.LittleEndian
	ifd0 := int(o.Uint32(loop[4:]))
	n := int(o.Uint16(loop[ifd0:]))
	o.PutUint32(loop[ifd0+2+12*n:], uint32(ifd0)) // IFD0's next directory is itself
	if got := polyglotKind(t, loop, testLimits()); !strings.Contains(got, "ciclo") {
		t.Errorf("a directory chain that loops: %s", got)
	}
}

// withTIFFCompression returns the TIFF tf (little-endian, as textTIFF
// writes it) with IFD0's Compression set to c.
func withTIFFCompression(tf []byte, c uint16) []byte {
	tf = bytes.Clone(tf)
	o := binary.LittleEndian
	ifd0 := int(o.Uint32(tf[4:]))
	for i := 0; i < int(o.Uint16(tf[ifd0:])); i++ {
		if e := tf[ifd0+2+12*i:]; o.Uint16(e) == tagCompression {
			o.PutUint16(e[8:], c)
			return tf
		}
	}
	panic("no Compression")
}

// noisePNG is a grey PNG of noise from image/png, compressed.
func noisePNG(w, h int) []byte {
	img := image.NewGray(image.Rect(0, 0, w, h))
	copy(img.Pix, randomBytes(len(img.Pix), 7))
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		panic(err)
	}
	return b.Bytes()
}
