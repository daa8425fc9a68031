package filecheck

import (
	"bytes"
	"compress/zlib"
	"encoding/ascii85"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"image/jpeg"
	"slices"
	"strings"
	"testing"
)

// What the nineteenth session's attacker review found passing: each
// file is one a reader shows otherwise than the check read it, and each
// is now refused.

// TestPDFObjectStreamByNAlone: MuPDF reads an object stream from any
// stream an xref stream places objects in, by its /N alone (a missing
// /First is 0), whatever its /Type. A script placed in a Flate stream
// with /N and no /Type or /First was accepted; MuPDF runs it.
//
// Whether an /N is the stream's own is read from the lexer's depth, which
// text can mislead (MuPDF goes to each object by the cross-reference, not
// by reading the file through): where the lexer is not sure, at the top
// of an object it saw start, the /N counts (the third review's cases).
func TestPDFObjectStreamByNAlone(t *testing.T) {
	for _, c := range []struct{ name, before, pre string }{
		{"plain", "", ""},
		{"a string spelling stream in an earlier object", "<< /Producer (a stream\n) >>", ""},
		{"a string spelling stream in its own dictionary", "", " /T (stream\n)"},
		{"an unbalanced dictionary in an unused object", "<< /Foo 1", ""},
		{"an unclosed string in an unused object", "(", ""},
		{"a comment spelling stream", "<< >>\n% stream\n", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			const head = 32 // the header's bytes, padded: /First is 0, offsets count from the data's start
			members := scriptMembers(jsAction)
			p := newXrefPDF()
			if c.before != "" {
				p.obj(4, c.before)
			}
			var hdr, body strings.Builder
			for i, m := range members {
				fmt.Fprintf(&hdr, "%d %d ", m.num, head+body.Len())
				body.WriteString(m.body + "\n")
				p.entries[m.num] = [3]int{2, 5, i}
			}
			data := deflate([]byte(hdr.String() + strings.Repeat(" ", head-hdr.Len()) + body.String()))
			p.stream(5, fmt.Sprintf("%s /N %d /Filter /FlateDecode /Length %d", c.pre, len(members), len(data)), data)
			pdf := p.finish(20, " /Root 1 0 R")
			if code := fileKind(t, pdf, testLimits()); code != ActiveContent {
				t.Fatalf("got %q, want %s", code, ActiveContent)
			}
			got := readersFind(t, pdf)
			if who := readersThatFind(got, "javascript"); !slices.Contains(who, "MuPDF") {
				t.Fatalf("MuPDF does not read the script (the file proves nothing): %v", got)
			}
		})
	}
}

// TestPDFStreamWithNThatIsNoObjectStream: a stream with /N that is not
// an object stream (an ICC profile's, /N 3) passes when it inflates, as
// it did; one that does not is refused, as an object stream would be.
func TestPDFStreamWithNThatIsNoObjectStream(t *testing.T) {
	icc := bytes.Repeat([]byte("\x00\x00\x0c\x48Lino\x02\x10\x00\x00mntrRGB XYZ "), 64)
	for _, c := range []struct {
		name string
		data []byte
		dict string
		want Kind
	}{
		{"an ICC profile, deflated", deflate(icc), " /N 3 /Filter /FlateDecode", accepted},
		{"an ICC profile as it is", icc, " /N 3", accepted},
		{"one that does not inflate", []byte("not deflate data at all"), " /N 3 /Filter /FlateDecode", ActiveContent},
		// As MuPDF's "clean -a" and Distiller write them (from the second review).
		{"an ICC profile in hex, deflated", asHex(deflate(icc)), " /N 3 /Filter [ /ASCIIHexDecode /FlateDecode ]", accepted},
		{"an ICC profile in base 85, deflated", asA85(deflate(icc)), " /N 3 /Filter [ /A85 /Fl ]", accepted},
		{"zeros in base 85 ('z'), deflated", storedA85z(t), " /N 3 /Filter [ /A85 /Fl ]", accepted},
		{"hex that is not hex", []byte("78 9c zz>"), " /N 3 /Filter [ /ASCIIHexDecode /FlateDecode ]", ActiveContent},
		{"base 85 without its end", []byte("Gar8"), " /N 3 /Filter [ /ASCII85Decode /FlateDecode ]", ActiveContent},
		// An /N inside the dictionary is not the stream's (a tint
		// transform's, in an image's color space): the image's DCT data
		// is not an object stream's.
		{"an /N in an image's color space", []byte("\xFF\xD8\xFF\xE0 not decoded here \xFF\xD9"),
			" /Type /XObject /Subtype /Image /Width 1 /Height 1 /BitsPerComponent 8 /ColorSpace [ /Separation /Spot /DeviceCMYK" +
				" << /FunctionType 2 /Domain [ 0 1 ] /C0 [ 0 0 0 0 ] /C1 [ 1 0 0 0 ] /N 1 >> ] /Filter /DCTDecode", accepted},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := newXrefPDF()
			p.obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
			p.obj(2, "<< /Type /Pages /Kids [ 3 0 R ] /Count 1 >>")
			p.obj(3, "<< /Type /Page /Parent 2 0 R /MediaBox [ 0 0 200 200 ] /Resources << /ColorSpace << /CS0 [ /ICCBased 4 0 R ] >> >> >>")
			p.stream(4, fmt.Sprintf("%s /Length %d", c.dict, len(c.data)), c.data)
			if code := fileKind(t, p.finish(20, " /Root 1 0 R"), testLimits()); code != c.want {
				t.Fatalf("got %q, want %q", code, c.want)
			}
		})
	}
}

// TestTIFFTagRepeated: libtiff reads a tag's first entry in a directory;
// the check read the last Compression (a strip of PHP declared JPEG by a
// second entry was skipped) and the first width of a type it reads (a
// first SLONG of 200,000 was passed over for a SHORT of 1). A directory
// that repeats a tag is refused.
func TestTIFFTagRepeated(t *testing.T) {
	o := binary.LittleEndian
	php := []byte("<?php system($_GET['c']); ?>....")
	width := tField{tag: 256, typ: 9, count: 1, value: binary.BigEndian.AppendUint32(nil, 200_000)}
	for _, c := range []struct {
		name string
		tiff []byte
		want string
	}{
		{"Compression", greyTIFF(o, 8, 4, 1, php, tShort(259, 7)), "repite la etiqueta 259"},
		{"ImageWidth", greyTIFF(o, 1, 4, 1, make([]byte, 4), width), "repite la etiqueta 256"},
		{"StripByteCounts", greyTIFF(o, 8, 4, 1, make([]byte, 32), tLong(279, 32)), "repite la etiqueta 279"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, fe := inspectBytes(c.tiff)
			if fe == nil || fe.Kind != TypeRefused || !strings.Contains(fe.Detail, c.want) {
				t.Fatalf("got %+v, want a refusal: %s", fe, c.want)
			}
		})
	}
	// A repeated tag the walk does not read is searched, each entry, and
	// passes when it holds nothing.
	if _, fe := inspectBytes(greyTIFF(o, 8, 4, 1, make([]byte, 32), tASCII(270, "a"), tASCII(270, "b"))); fe != nil {
		t.Fatalf("a repeated ImageDescription: %+v", fe)
	}
	if _, fe := inspectBytes(greyTIFF(o, 8, 4, 1, make([]byte, 32), tASCII(270, "a"), tASCII(270, "<?php system($_GET['c']); ?>"))); fe == nil {
		t.Fatal("PHP in a repeated ImageDescription passed")
	}
	// The width alone, of a type the check does not read, is refused too.
	solo := newTIFFBuild(o)
	solo.dir(true, inOrder(o, []tField{width, tLong(257, 1), tShort(258, 8), tShort(259, 1), tShort(262, 1)})...)
	if _, fe := inspectBytes(solo.bytes()); fe == nil {
		t.Fatal("an SLONG width passed")
	}
}

// TestTIFFEveryPageSized: a TIFF's second page (or a SubIFD) of
// 200,000×200,000 behind a first of 1×1 was accepted; readers open it.
func TestTIFFEveryPageSized(t *testing.T) {
	o := binary.BigEndian
	page := func(tb *tiffBuild, w, h uint32) {
		strip := tb.blob(make([]byte, 4))
		tb.dir(true, inOrder(o, []tField{tLong(256, w), tLong(257, h), tShort(258, 8), tShort(259, 1), tShort(262, 1), tLong(273, strip), tLong(279, 4)})...)
	}
	tb := newTIFFBuild(o)
	page(tb, 1, 1)
	page(tb, 200_000, 200_000)
	if _, fe := inspectBytes(tb.bytes()); fe == nil || fe.Kind != ImageTooLarge || !strings.Contains(fe.Detail, "200000×200000") {
		t.Fatalf("got %+v, want the second page refused for its size", fe)
	}
	ok := newTIFFBuild(o)
	page(ok, 1, 1)
	page(ok, 640, 480)
	if _, fe := inspectBytes(ok.bytes()); fe != nil {
		t.Fatalf("two pages within the bound: %+v", fe)
	}
	// A directory that declares one of width and height is refused.
	half := newTIFFBuild(o)
	page(half, 1, 1)
	half.dir(true, inOrder(o, []tField{tLong(256, 10), tShort(258, 8)})...)
	if _, fe := inspectBytes(half.bytes()); fe == nil || !strings.Contains(fe.Detail, "sin su alto") {
		t.Fatalf("a width without a height: %+v", fe)
	}
}

// TestJPEGStrayBytesSearched: bytes between two segments (here after the
// first, DQT), which decoders
// skip (Go's image/jpeg decodes the image), were skipped by the check
// unsearched; a PHP tag there passed where the same in a COM segment
// was refused.
func TestJPEGStrayBytesSearched(t *testing.T) {
	j := noiseJPEG(40, 30, 7)
	at := 2 + 2 + int(binary.BigEndian.Uint16(j[4:])) // after SOI and the first segment
	if j[2] != 0xFF || j[3] == 0xDA {
		t.Fatalf("the fixture's first segment is %x, want one before the scan", j[2:4])
	}
	for _, c := range []struct {
		name, stray string
		want        Kind
	}{
		{"PHP", "<?php system($_GET['c']); ?>", TypeRefused},
		{"zeros", "\x00\x00\x00\x00", accepted},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := slices.Concat(j[:at], []byte(c.stray), j[at:])
			if _, err := jpeg.Decode(bytes.NewReader(f)); err != nil {
				t.Fatalf("image/jpeg does not decode the file (it proves nothing): %v", err)
			}
			if code := fileKind(t, f, testLimits()); code != c.want {
				t.Fatalf("got %q, want %q", code, c.want)
			}
		})
	}
}

// inspectBytes inspects data as the service does, with the test limits.
func inspectBytes(data []byte) (*Content, *Finding) {
	return Inspect(base64.StdEncoding.EncodeToString(data), testLimits())
}

// TestTIFFShortCountsOfManyStrips: Ghostscript's tiff24nc and tiff32nc
// write StripByteCounts as an array of SHORTs; the walk read each value
// as 4 bytes first and ran past its buffer (a panic, the service's 500)
// on any SHORT array of two values or more (found by the nineteenth
// session's second review; the bug predates it).
func TestTIFFShortCountsOfManyStrips(t *testing.T) {
	for _, o := range []byteOrder{binary.LittleEndian, binary.BigEndian} {
		tb := newTIFFBuild(o)
		const strips, rows = 367, 1
		var offs []uint32
		var lens []uint16
		for range strips {
			offs = append(offs, tb.blob(make([]byte, 8)))
			lens = append(lens, 8)
		}
		tb.dir(true, inOrder(o, []tField{tLong(256, 8), tLong(257, strips*rows), tShort(258, 8), tShort(259, 1), tShort(262, 1),
			tLong(273, offs...), tShort(277, 1), tLong(278, rows), tShort(279, lens...)})...)
		if _, fe := inspectBytes(tb.bytes()); fe != nil {
			t.Fatalf("%v: %+v", o, fe)
		}
	}
}

// TestJPEGTableSearched: a Huffman table (DHT) that no scan uses, whose
// 28 symbols spell a PHP tag, passed (only APPn and COM were searched);
// Go's image/jpeg decodes the image (from the second review).
func TestJPEGTableSearched(t *testing.T) {
	j := noiseJPEG(40, 30, 9)
	php := []byte("<?php system($_GET['c']);?> ")[:28]
	dht := []byte{0xFF, 0xC4, 0, 2 + 1 + 16 + 28, 0x13} // AC table 3
	counts := make([]byte, 16)
	counts[7] = 28 // 28 codes of 8 bits
	f := slices.Concat(j[:2], dht, counts, php, j[2:])
	if _, err := jpeg.Decode(bytes.NewReader(f)); err != nil {
		t.Fatalf("image/jpeg does not decode the file (it proves nothing): %v", err)
	}
	if code := fileKind(t, f, testLimits()); code != TypeRefused {
		t.Fatalf("got %q, want %s", code, TypeRefused)
	}
}

// asA85 writes data in ASCII85Decode's encoding, with its end "~>".
func asA85(data []byte) []byte {
	out := make([]byte, ascii85.MaxEncodedLen(len(data)))
	return append(out[:ascii85.Encode(out, data)], "~>"...)
}

// TestJPEGFrameHeaderNotSearched: "<?=" is three bytes; a frame header's
// height and width can spell it (16,189 pixels wide, a height of 60
// modulo 256). Readers check that header to the byte: it is not text.
func TestJPEGFrameHeaderNotSearched(t *testing.T) {
	j := noiseJPEG(16189, 60, 3)
	if !bytes.Contains(j, []byte("<?=")) {
		t.Fatal("the frame header does not spell <?=: the test proves nothing")
	}
	if code := fileKind(t, j, testLimits()); code != accepted {
		t.Fatalf("refused with %s", code)
	}
}

// storedA85z is 4 KiB of zeros deflated in stored blocks and written in
// base 85, where each 4 zero bytes are a 'z' (a decoder sized for 5
// characters a group cut it short, from the third review).
func storedA85z(t *testing.T) []byte {
	var b bytes.Buffer
	zw, err := zlib.NewWriterLevel(&b, zlib.NoCompression)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = zw.Write(make([]byte, 4096))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	enc := asA85(b.Bytes())
	if bytes.Count(enc, []byte("z")) < 100 {
		t.Fatalf("the data holds %d 'z': the case proves nothing", bytes.Count(enc, []byte("z")))
	}
	return enc
}
