package filecheck

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// Files whose structure the walk cannot read whole (issue 32: fail
// closed): each is refused, where before what could not be read was
// skipped and the file passed. Each is built here.

func TestFailClosed(t *testing.T) {
	t.Parallel()
	le := binary.LittleEndian
	grey := make([]byte, 64*48)
	rows := greyRows(64, 48)
	zIDAT := zlibStored(rows)
	tiff := greyTIFF(le, 64, 48, 1, grey)
	ifd0 := int(le.Uint32(tiff[4:]))
	n := int(le.Uint16(tiff[ifd0:]))
	next := ifd0 + 2 + 12*n // IFD0's next directory
	entry := func(tag uint16) int {
		for i := 0; i < n; i++ {
			if le.Uint16(tiff[ifd0+2+12*i:]) == tag {
				return ifd0 + 2 + 12*i
			}
		}
		panic("no such tag")
	}
	set := func(at int, v uint32) []byte {
		f := bytes.Clone(tiff)
		le.PutUint32(f[at:], v)
		return f
	}
	withTag := func(fields ...tField) []byte { return greyTIFF(le, 64, 48, 1, grey, fields...) }
	exifPast := exifTIFFImage(le, tASCII(270, "Escáner"))
	exifPast = exifPast[:len(exifPast)-10] // the EXIF directory is cut
	for _, tt := range []struct {
		name string
		file []byte
	}{
		{"TIFF: the next directory past the end", set(next, uint32(len(tiff)+100))},
		{"TIFF: the next directory in the header", set(next, 4)},
		{"TIFF: the next directory is its own", set(next, uint32(ifd0))},
		{"TIFF: the strip past the end", set(entry(273)+8, uint32(len(tiff)))},
		{"TIFF: the strip runs past the end", set(entry(279)+8, uint32(len(tiff)))},
		{"TIFF: strips without their lengths", func() []byte { f := set(entry(279), 0); le.PutUint16(f[entry(279):], 7); return f }()},
		{"TIFF: a text value past the end", withTag(tField{tag: 270, typ: 2, count: 40, at: 1 << 30})},
		{"TIFF: the EXIF directory past the end", withTag(tLong(tagExifIFD, 1<<30))},
		{"TIFF: the EXIF directory cut", exifPast},
		{"TIFF: SubIFDs past the end", withTag(tLong(tagSubIFDs, 1<<30, 1<<30))},
		{"TIFF: a deflated strip that is not zlib, spelling <?=", greyTIFF(le, 64, 48, 8, []byte("not zlib at all <?= just bytes"))},
		{"PNG: an unknown critical chunk", greyPNG(64, 48, zIDAT, pngChunk("ABCD", []byte("datos")))},
		{"PNG: a chunk type that is not letters", greyPNG(64, 48, zIDAT, pngChunk("ab1d", []byte("datos")))},
		// IDAT is walked when its bytes as they are hold a marker (pngdata.go).
		{"PNG: IDAT that is not zlib, spelling <?=", greyPNG(64, 48, []byte("not zlib at all <?= just bytes"))},
		{"PNG: IDAT cut inside a stored block, spelling <?=", greyPNG(64, 48, append(bytes.Clone(zIDAT[:len(zIDAT)/2]), "<?="...))},
		{"PNG: eXIf that is not TIFF", greyPNG(64, 48, zIDAT, pngChunk("eXIf", []byte("Exif\x00\x00MM\x00*")))},
		{"PNG: eXIf whose directory is past its end", greyPNG(64, 48, zIDAT, pngChunk("eXIf", []byte("MM\x00*\x00\x00\x10\x00")))},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := fileKind(t, tt.file, testLimits()); got == accepted {
				t.Fatal("accepted; want refused")
			}
		})
	}
	// The same structures, whole, pass.
	for name, f := range map[string][]byte{
		"TIFF":               tiff,
		"TIFF with its EXIF": exifTIFFImage(le, tASCII(270, "Escáner")),
		"TIFF, big-endian":   greyTIFF(binary.BigEndian, 64, 48, 1, grey),
		"PNG":                greyPNG(64, 48, zIDAT),
		// Image data that holds no marker as it is cannot show one to a
		// reader of the bytes, and is not walked, valid or not.
		"PNG whose IDAT is not zlib": greyPNG(64, 48, []byte("not zlib at all, just bytes")),
		"PNG with its eXIf":          greyPNG(64, 48, zIDAT, pngChunk("eXIf", exifTIFF(binary.BigEndian, []tField{tASCII(271, "Canon")}, nil))),
	} {
		if got := fileKind(t, f, testLimits()); got != accepted {
			t.Errorf("%s: %s; want accepted", name, got)
		}
	}
}
