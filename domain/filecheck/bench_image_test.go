package filecheck

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"image"
	"image/png"
	"testing"
)

// photoPNG is an RGB PNG of w×h from image/png whose pixels vary as a
// photo's do (a gradient with noise), so that its IDAT is Huffman-coded
// as cameras' and editors' are.
func photoPNG(w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	noise := randomBytes(len(img.Pix), 13)
	for i := range img.Pix {
		img.Pix[i] = byte(i/(4*w)) + noise[i]%8
		if i%4 == 3 {
			img.Pix[i] = 255
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// rawTIFF is a grey TIFF of about size bytes whose one strip is not
// compressed (as scanners write them), built by hand.
func rawTIFF(size int) []byte {
	o := binary.LittleEndian
	width := 1000
	rows := size / width
	b := []byte("II*\x00")
	b = o.AppendUint32(b, uint32(8+width*rows))
	px := make([]byte, width*rows)
	for i := range px {
		px[i] = byte(i*7) & 0x3B // never '<' (0x3C): no marker by chance
	}
	b = append(b, px...)
	b = o.AppendUint16(b, 6)
	for _, e := range [][3]uint32{{256, 4, uint32(width)}, {257, 4, uint32(rows)}, {258, 3, 8}, {259, 3, 1}, {273, 4, 8}, {279, 4, uint32(len(px))}} {
		b = o.AppendUint32(o.AppendUint32(o.AppendUint16(o.AppendUint16(b, uint16(e[0])), uint16(e[1])), 1), e[2])
	}
	return o.AppendUint32(b, 0)
}

// BenchmarkFileInspectPNG1M: a PNG photo of about 1 MB, its chunks walked
// and (since issue 32) its IDAT walked for stored blocks.
func BenchmarkFileInspectPNG1M(b *testing.B) {
	benchInspect(b, base64.StdEncoding.EncodeToString(photoPNG(600, 400)))
}

// BenchmarkFileInspectPNG8M: the same, about 8 MB: many blocks, the IDAT
// read again from the text.
func BenchmarkFileInspectPNG8M(b *testing.B) {
	benchInspect(b, base64.StdEncoding.EncodeToString(photoPNG(1700, 1100)))
}

// BenchmarkFileInspectTIFF20M: a TIFF of 20 MB whose strip is not
// compressed: its directory walked and (since issue 32) all of it searched.
func BenchmarkFileInspectTIFF20M(b *testing.B) {
	benchInspect(b, base64.StdEncoding.EncodeToString(rawTIFF(20<<20-4096)))
}
