package filecheck

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"encoding/binary"
	"hash/adler32"
	"strings"
	"testing"
)

// Files for issue 32's finding 14 (image side): markup as it is, in
// places that hold bytes uncompressed (a stored deflate block, a private
// PNG chunk, a TIFF strip that is not compressed), which the check did
// not search because compressed data is not searched. Each is built here.

const php = "<?php system($_GET[0]); ?>"

// storedBlock is a deflate stored block (RFC 1951 §3.2.4) holding p;
// final marks the stream's last block. It starts on a byte boundary.
func storedBlock(p []byte, final bool) []byte {
	h := byte(0)
	if final {
		h = 1
	}
	b := []byte{h}
	b = binary.LittleEndian.AppendUint16(b, uint16(len(p)))
	b = binary.LittleEndian.AppendUint16(b, ^uint16(len(p)))
	return append(b, p...)
}

// mixedZlib is a zlib stream of data as encoders write it (Huffman
// blocks from compress/flate) with, in its middle, a stored block of
// stored, then the rest of data compressed again.
func mixedZlib(data, stored []byte) []byte {
	var body bytes.Buffer
	w, _ := flate.NewWriter(&body, flate.DefaultCompression)
	half := len(data) / 2
	w.Write(data[:half])
	w.Flush() // a sync flush: the stream is on a byte boundary after it
	body.Write(storedBlock(stored, false))
	w2, _ := flate.NewWriter(&body, flate.DefaultCompression)
	w2.Write(data[half:])
	w2.Close()
	z := append([]byte{0x78, 0x9C}, body.Bytes()...)
	all := append(append(bytes.Clone(data[:half]), stored...), data[half:]...)
	return binary.BigEndian.AppendUint32(z, adler32.Checksum(all))
}

// zlibStored is data as one stored block in a zlib stream.
func zlibStored(data []byte) []byte {
	var b bytes.Buffer
	w, _ := zlib.NewWriterLevel(&b, zlib.NoCompression)
	w.Write(data)
	w.Close()
	return b.Bytes()
}

// greyPNG is a PNG of width×height grey pixels whose IDAT holds idat,
// with the chunks more after IHDR.
func greyPNG(width, height uint32, idat []byte, more ...[]byte) []byte {
	ihdr := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, width), height)
	ihdr = append(ihdr, 8, 0, 0, 0, 0)
	b := append([]byte("\x89PNG\r\n\x1a\n"), pngChunk("IHDR", ihdr)...)
	for _, c := range more {
		b = append(b, c...)
	}
	b = append(b, pngChunk("IDAT", idat)...)
	return append(b, pngChunk("IEND", nil)...)
}

// greyRows are height rows of width noise pixels, each after its filter
// byte (0, none).
func greyRows(width, height int) []byte {
	var b []byte
	px := randomBytes(width*height, 11)
	for y := range height {
		b = append(append(b, 0), px[y*width:(y+1)*width]...)
	}
	return b
}

// packBits is p as one PackBits literal run per 128 bytes.
func packBits(p []byte) []byte {
	var b []byte
	for len(p) > 0 {
		k := min(len(p), 128)
		b = append(append(b, byte(k-1)), p[:k]...)
		p = p[k:]
	}
	return b
}

func TestUncompressedPlaces(t *testing.T) {
	t.Parallel()
	le := binary.LittleEndian
	rows := greyRows(64, 48)
	withPHP := append(bytes.Clone(rows[:64*20]), php...)
	withPHP = append(withPHP, rows[64*20+len(php):]...)
	zIDAT := zlibStored(rows)
	// Grey that compresses, with the markup: Huffman-coded, so not in the file as it is.
	flatWithPHP := append(bytes.Repeat([]byte{0x80}, 64*20), php...)
	flatWithPHP = append(flatWithPHP, bytes.Repeat([]byte{0x80}, 64*48-len(flatWithPHP))...)
	for _, tt := range []struct {
		name string
		file []byte
		want string
	}{
		{"PNG IDAT, a stored block between Huffman blocks", greyPNG(64, 48, mixedZlib(rows, []byte(php))), "polyglot"},
		{"PNG IDAT, all stored, markup in the pixels", greyPNG(64, 48, zlibStored(withPHP)), "polyglot"},
		{"PNG IDAT, markup after the zlib stream", greyPNG(64, 48, append(bytes.Clone(zIDAT), php...)), "polyglot"},
		{"PNG IDAT, compressed", greyPNG(64, 48, compressed(rows, zlib.DefaultCompression)), "accepted"},
		{"PNG IDAT, all stored, no markup", greyPNG(64, 48, zIDAT), "accepted"},
		{"PNG zTXt, a stored block", greyPNG(64, 48, zIDAT, pngChunk("zTXt", append([]byte("Comment\x00\x00"), zlibStored([]byte(php))...))), "polyglot"},
		{"PNG iTXt, a stored block", greyPNG(64, 48, zIDAT, pngChunk("iTXt", append([]byte("Comment\x00\x01\x00\x00\x00"), mixedZlib([]byte("texto "), []byte(php))...))), "polyglot"},
		{"PNG iCCP, a stored block", greyPNG(64, 48, zIDAT, pngChunk("iCCP", append([]byte("sRGB\x00\x00"), zlibStored([]byte(php))...))), "polyglot"},
		{"PNG private chunk", greyPNG(64, 48, zIDAT, pngChunk("prVt", []byte(php))), "polyglot"},
		{"PNG private chunk, no markup", greyPNG(64, 48, zIDAT, pngChunk("prVt", []byte("datos del escáner"))), "accepted"},
		{"PNG PLTE", greyPNG(64, 48, zIDAT, pngChunk("PLTE", []byte("<?= `id` ?>\x00"))), "polyglot"},
		{"TIFF strip, not compressed", greyTIFF(le, 64, 48, 1, withPHP[:64*48]), "polyglot"},
		{"TIFF strip, PackBits", greyTIFF(le, 64, 48, 32773, packBits(withPHP[:64*48])), "polyglot"},
		{"TIFF strip, deflate with a stored block", greyTIFF(le, 64, 48, 8, mixedZlib(rows[:64*48], []byte(php))), "polyglot"},
		{"TIFF strip, deflate", greyTIFF(le, 64, 48, 8, compressed(flatWithPHP, zlib.BestCompression)), "accepted"},
		{"TIFF strip, not compressed, no markup", greyTIFF(le, 64, 48, 1, rows[:64*48]), "accepted"},
		{"TIFF strip, a Compression that is not a number", compressionAsText(greyTIFF(le, 64, 48, 5, withPHP[:64*48])), "polyglot"},
		// Pixel bytes as a dark photo's are (pixeltext.go): they spell
		// "<?=" and "<?PHPG" by chance, and are no markup.
		{"TIFF strip, not compressed, dark pixels", greyTIFF(le, 64, 48, 1, darkPixels(64*48)), "accepted"},
		{"PNG IDAT, all stored, dark pixels", greyPNG(64, 48, zlibStored(darkPixels(64*48+48))), "accepted"},
		{"TIFF strip, not compressed, an HTML tag", greyTIFF(le, 64, 48, 1, withText(darkPixels(64*48), "<svg/onload=alert(1)>")), "polyglot"},
		{"PNG IDAT, all stored, an HTML tag", greyPNG(64, 48, zlibStored(withText(darkPixels(64*48+48), "<script>alert(1)</script>"))), "polyglot"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := polyglotKind(t, tt.file, testLimits()); got != tt.want {
				t.Fatalf("%s; want %s", got, tt.want)
			}
			if tt.want == "polyglot" && !bytes.Contains(tt.file, []byte(strings.Split(php, " ")[0])) && !bytes.Contains(tt.file, []byte("<?=")) {
				t.Fatal("the markup is not in the file as it is")
			}
		})
	}
}

// darkPixels are n bytes as a dark photo's RGB pixels are (values 30 to
// 90, printable ASCII), with what such pixels of Debian's pixels-d.tif
// spell by chance: "<?=K3.;72B" and "<?PHPG@BH".
func darkPixels(n int) []byte {
	p := randomBytes(n, 17)
	for i := range p {
		p[i] = 30 + p[i]%60
	}
	copy(p[n/4:], "<?=K3.;72B?;H0,9;6C=9E0,")
	copy(p[n/2:], "<?PHPG@BHADSKPPGE")
	return p
}

// withText is p with s written in its middle.
func withText(p []byte, s string) []byte {
	p = bytes.Clone(p)
	copy(p[len(p)*3/4:], s)
	return p
}

// compressionAsText is the little-endian TIFF tf with its Compression
// entry's type made ASCII: a value the walk cannot read as a number.
func compressionAsText(tf []byte) []byte {
	tf = bytes.Clone(tf)
	o := binary.LittleEndian
	ifd0 := int(o.Uint32(tf[4:]))
	for i := 0; i < int(o.Uint16(tf[ifd0:])); i++ {
		if e := tf[ifd0+2+12*i:]; o.Uint16(e) == tagCompression {
			o.PutUint16(e[2:], 2)
			return tf
		}
	}
	panic("no Compression")
}
