package filecheck

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"
)

// Files for issue 32's finding 7: markup where readers show bytes as
// text that the check did not search (a PNG's eXIf and iCCP chunks, a
// TIFF's XMP, UserComment and Windows XP tags), and finding 7's rule
// beyond its list (the XP tags of a JPEG's EXIF). Each is built here;
// exiftool, an independent reader, shows the markup of each.

// ucs2 is s in UCS-2, little-endian, as the Windows XP tags hold text.
func ucs2(s string) []byte {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = binary.LittleEndian.AppendUint16(b, u)
	}
	return append(b, 0, 0)
}

// exifTIFF is a TIFF structure (as a PNG's eXIf chunk or a JPEG's APP1
// holds one) whose IFD0 has the fields f0 and an EXIF directory with fe.
func exifTIFF(o byteOrder, f0, fe []tField) []byte {
	t := newTIFFBuild(o)
	if len(fe) == 0 {
		t.dir(true, inOrder(o, f0)...)
		return t.bytes()
	}
	d0 := t.dir(true, inOrder(o, append(f0, tLong(tagExifIFD, 0)))...)
	exif := t.dir(false, inOrder(o, fe)...)
	// IFD0's ExifIFD entry (the highest tag, so the last) points at exif.
	n := int(o.Uint16(t.b[d0:]))
	o.PutUint32(t.b[int(d0)+2+12*(n-1)+8:], exif)
	return t.bytes()
}

// textPlaceFiles are the hostile files of finding 7, by name, each with
// the text exiftool must show from it; with plain, the same files with
// the plain text "Canon EOS" in place of each markup.
func textPlaceFiles(plain bool) []struct {
	name, shows string
	file        []byte
} {
	m := func(s string) string {
		if plain {
			return "Canon EOS"
		}
		return s
	}
	be, le := binary.BigEndian, binary.LittleEndian
	pngFile := goPNG(64, 48)
	grey := make([]byte, 64*48)
	tiffWith := func(more ...tField) []byte { return greyTIFF(le, 64, 48, 1, grey, more...) }
	return []struct {
		name, shows string
		file        []byte
	}{
		{"PNG eXIf, ImageDescription", "<script>alert(1)</script>",
			withPNGChunk(pngFile, pngChunk("eXIf", exifTIFF(be, []tField{tASCII(270, m("<script>alert(1)</script>"))}, nil)))},
		{"PNG eXIf, XPComment (UCS-2)", "<?php system($_GET[0]); ?>",
			withPNGChunk(pngFile, pngChunk("eXIf", exifTIFF(le, []tField{tBytes(0x9C9C, 1, ucs2(m("<?php system($_GET[0]); ?>")))}, nil)))},
		{"PNG iCCP profile name", "<svg onload=alert(1)>",
			withPNGChunk(pngFile, pngChunk("iCCP", append([]byte(m("<svg onload=alert(1)>")+"\x00\x00"), deflate(make([]byte, 128))...)))},
		{"TIFF XMP (700, BYTE)", "<script>alert(1)</script>", tiffWith(tBytes(700, 1, []byte(xmpWith(m("<script>alert(1)</script>")))))},
		{"TIFF XMP (700, UNDEFINED), UTF-16", "<html><body onload=alert(1)>",
			tiffWith(tBytes(700, 7, ucs2("\uFEFF"+xmpWith(m("<html><body onload=alert(1)>")))))},
		{"TIFF XPComment (UCS-2)", "<?php system($_GET[0]); ?>", tiffWith(tBytes(0x9C9C, 1, ucs2(m("<?php system($_GET[0]); ?>"))))},
		{"TIFF XPTitle (UCS-2)", "<iframe src=x>", tiffWith(tBytes(0x9C9B, 1, ucs2(m("<iframe src=x>"))))},
		{"TIFF XPSubject (UCS-2)", "<embed src=x>", tiffWith(tBytes(0x9C9F, 1, ucs2(m("<embed src=x>"))))},
		{"TIFF UserComment, ASCII", "<?= `id` ?>",
			exifTIFFImage(le, tBytes(0x9286, 7, []byte("ASCII\x00\x00\x00"+m("<?= `id` ?>"))))},
		{"TIFF UserComment, UNICODE", "<object data=x>",
			exifTIFFImage(le, tBytes(0x9286, 7, append([]byte("UNICODE\x00"), ucs2(m("<object data=x>"))...)))},
		{"JPEG EXIF, XPComment (UCS-2)", "<?php echo 1; ?>",
			withJPEGSegment(noiseJPEG(64, 48, 3), 0xE1, "Exif\x00\x00"+string(exifTIFF(le, []tField{tBytes(0x9C9C, 1, ucs2(m("<?php echo 1; ?>")))}, nil)))},
	}
}

// exifTIFFImage is a grey TIFF image whose EXIF directory has the field f.
func exifTIFFImage(o byteOrder, f tField) []byte {
	t := newTIFFBuild(o)
	grey := t.blob(make([]byte, 64*48))
	d0 := t.dir(true, inOrder(o, []tField{tLong(256, 64), tLong(257, 48), tShort(258, 8), tShort(259, 1), tShort(262, 1),
		tLong(273, grey), tLong(278, 48), tLong(279, 64*48), tLong(tagExifIFD, 0)})...)
	exif := t.dir(false, f)
	n := int(o.Uint16(t.b[d0:]))
	o.PutUint32(t.b[int(d0)+2+12*(n-1)+8:], exif)
	return t.bytes()
}

// TestTextPlaces: each file of finding 7 is refused as a polyglot, and
// the same file with plain text in that place is accepted.
func TestTextPlaces(t *testing.T) {
	t.Parallel()
	plain := textPlaceFiles(true)
	for i, tt := range textPlaceFiles(false) {
		t.Run(tt.name, func(t *testing.T) {
			if got := polyglotKind(t, tt.file, testLimits()); got != "polyglot" {
				t.Fatalf("%s; want polyglot", got)
			}
			if got := polyglotKind(t, plain[i].file, testLimits()); got != "accepted" {
				t.Fatalf("with plain text: %s; want accepted", got)
			}
		})
	}
}

// TestTextPlacesExiftool: exiftool, an independent reader, shows the
// markup of each file of finding 7 (the attacker's claim holds), and the
// same files with plain text there are accepted. Without exiftool
// (Debian's libimage-exiftool-perl, which .ci/run installs) the test is
// skipped, but fails under CI=true.
func TestTextPlacesExiftool(t *testing.T) {
	t.Parallel()
	exiftool, err := exec.LookPath("exiftool")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true and exiftool is not installed (.ci/run installs libimage-exiftool-perl)")
		}
		t.Skip("exiftool is not installed (.ci/run installs libimage-exiftool-perl)")
	}
	dir := t.TempDir()
	for i, tt := range textPlaceFiles(false) {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.Repeat("f", i+1))
			if err := os.WriteFile(path, tt.file, 0o600); err != nil {
				t.Fatal(err)
			}
			// Every tag as JSON, and the XMP packet as it is (-b -XMP).
			out, err := exec.Command(exiftool, "-a", "-u", "-j", path).CombinedOutput()
			if err != nil {
				t.Fatalf("exiftool: %v\n%s", err, out)
			}
			xmp, err := exec.Command(exiftool, "-b", "-XMP", path).Output()
			if err != nil {
				t.Fatalf("exiftool -b -XMP: %v", err)
			}
			out = append(out, xmp...)
			if !bytes.Contains(out, []byte(tt.shows)) && !bytes.Contains(out, []byte(jsonEscaped(tt.shows))) {
				t.Fatalf("exiftool does not show %q:\n%s", tt.shows, out)
			}
			if got := polyglotKind(t, tt.file, testLimits()); got != "polyglot" {
				t.Fatalf("%s; want polyglot", got)
			}
		})
	}
}

// jsonEscaped is s as exiftool's JSON writes it.
func jsonEscaped(s string) string {
	return strings.NewReplacer(`"`, `\"`, `\`, `\\`).Replace(s)
}

// xmpWith is an XMP packet whose title is text, in a CDATA section, as
// it is: XMP readers show it as the title.
func xmpWith(text string) string {
	return `<?xpacket begin="` + "\uFEFF" + `" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/">` +
		`<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">` +
		`<dc:title><rdf:Alt><rdf:li xml:lang="x-default"><![CDATA[` + text + `]]></rdf:li></rdf:Alt></dc:title>` +
		`</rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>`
}
