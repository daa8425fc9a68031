package filecheck

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
)

// Images shaped as encoders, cameras and scanners write them.

// noiseJPEG is a JPEG of noise from image/jpeg: its entropy-coded data is
// full of stuffed FF bytes.
func noiseJPEG(w, h int, seed uint64) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(seed, 1))
	for i := range img.Pix {
		img.Pix[i] = byte(r.Uint32())
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// goPNG is a PNG from image/png with a tEXt and a pHYs chunk after IHDR,
// as editors and scanners add them.
func goPNG(w, h int) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.NRGBA{uint8(x * 4), uint8(y * 5), 200, 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		panic(err)
	}
	data := b.Bytes()
	extra := append(pngChunk("tEXt", []byte("Software\x00GIMP 2.10")), pngChunk("pHYs", []byte{0, 0, 0x0B, 0x13, 0, 0, 0x0B, 0x13, 1})...)
	return append(append(data[:33:33], extra...), data[33:]...) // 33: signature and IHDR
}

func pngChunk(typ string, data []byte) []byte {
	c := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	c = append(append(c, typ...), data...)
	return binary.BigEndian.AppendUint32(c, crc32.ChecksumIEEE(c[4:]))
}

// withPNGSize returns p with IHDR declaring width×height (CRC kept right).
func withPNGSize(p []byte, width, height uint32) []byte {
	p = bytes.Clone(p)
	binary.BigEndian.PutUint32(p[16:], width)
	binary.BigEndian.PutUint32(p[20:], height)
	binary.BigEndian.PutUint32(p[29:], crc32.ChecksumIEEE(p[12:29]))
	return p
}

// jpegSOF returns the offset of the first frame header of the JPEG j,
// found by walking its segments.
func jpegSOF(j []byte) int {
	for i := 2; i+4 <= len(j); i += 2 + int(binary.BigEndian.Uint16(j[i+2:])) {
		if isSOF(j[i+1]) {
			return i
		}
	}
	panic("no SOF")
}

// withJPEGSize returns j with its frame header declaring width×height.
func withJPEGSize(j []byte, width, height uint16) []byte {
	j = bytes.Clone(j)
	sof := jpegSOF(j)
	binary.BigEndian.PutUint16(j[sof+5:], height)
	binary.BigEndian.PutUint16(j[sof+7:], width)
	return j
}

// withEXIFThumbnail puts an APP1 EXIF segment after SOI whose thumbnail
// is thumb, as cameras and phones write it.
func withEXIFThumbnail(j, thumb []byte) []byte {
	tiffHead := []byte("MM\x00\x2A\x00\x00\x00\x08\x00\x00\x00\x00\x00\x00") // IFD0 empty, IFD1 offset 0
	payload := append(append([]byte("Exif\x00\x00"), tiffHead...), thumb...)
	seg := binary.BigEndian.AppendUint16([]byte{0xFF, 0xE1}, uint16(len(payload)+2))
	return append(append(append([]byte{}, j[:2]...), append(seg, payload...)...), j[2:]...)
}

type byteOrder interface {
	binary.ByteOrder
	binary.AppendByteOrder
}

// handTIFF is an 8-bit grey TIFF built by hand: header, IFD0 either right
// after the header or after the pixels (as some scanners write it), with
// the size as SHORT or LONG entries.
func handTIFF(order byteOrder, width, height uint32, long, ifdLast bool) []byte {
	pixels := make([]byte, min(int(width)*int(height), 1<<16))
	for i := range pixels {
		pixels[i] = byte(i)
	}
	type entry struct {
		tag, typ uint16
		v        uint32
	}
	sizeType := uint16(3)
	if long {
		sizeType = 4
	}
	const nEntries = 9
	ifdLen := 2 + nEntries*12 + 4
	ifdAt, pixAt := 8, 8+ifdLen
	if ifdLast {
		ifdAt, pixAt = 8+len(pixels), 8
	}
	entries := []entry{
		{256, sizeType, width}, {257, sizeType, height}, {258, 3, 8}, {259, 3, 1}, {262, 3, 1},
		{273, 4, uint32(pixAt)}, {277, 3, 1}, {278, sizeType, height}, {279, 4, uint32(len(pixels))},
	}
	var b []byte
	if order == binary.LittleEndian {
		b = append(b, "II*\x00"...)
	} else {
		b = append(b, "MM\x00*"...)
	}
	b = order.AppendUint32(b, uint32(ifdAt))
	ifd := order.AppendUint16(nil, nEntries)
	for _, e := range entries {
		ifd = order.AppendUint16(order.AppendUint16(ifd, e.tag), e.typ)
		ifd = order.AppendUint32(ifd, 1)
		if e.typ == 3 {
			ifd = order.AppendUint16(order.AppendUint16(ifd, uint16(e.v)), 0)
		} else {
			ifd = order.AppendUint32(ifd, e.v)
		}
	}
	ifd = order.AppendUint32(ifd, 0) // no next IFD
	if ifdLast {
		return append(append(b, pixels...), ifd...)
	}
	return append(append(b, ifd...), pixels...)
}
