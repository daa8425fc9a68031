package filecheck

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"
)

func TestImagesAccepted(t *testing.T) {
	thumb := withJPEGSize(noiseJPEG(16, 16, 2), 60000, 60000) // a thumbnail that is never decoded as the image
	for name, img := range map[string][]byte{
		"PNG from image/png":                   goPNG(64, 48),
		"PNG with bytes after IEND":            append(goPNG(64, 48), "\x00\x00\x00\x00"...),
		"JPEG from image/jpeg":                 noiseJPEG(64, 48, 1),
		"JPEG over several blocks":             noiseJPEG(900, 700, 3),
		"JPEG with an EXIF thumbnail":          withEXIFThumbnail(noiseJPEG(640, 480, 4), thumb),
		"JPEG with padding after FFD9":         append(noiseJPEG(64, 48, 5), make([]byte, jpegTrailer)...),
		"JPEG with fill bytes before a marker": bytes.Replace(noiseJPEG(64, 48, 6), []byte{0xFF, 0xDB}, []byte{0xFF, 0xFF, 0xFF, 0xDB}, 1),
		"TIFF II, SHORT, IFD first":            handTIFF(binary.LittleEndian, 640, 480, false, false),
		"TIFF MM, SHORT, IFD first":            handTIFF(binary.BigEndian, 640, 480, false, false),
		"TIFF II, LONG, IFD after the pixels":  handTIFF(binary.LittleEndian, 640, 480, true, true),
		"TIFF MM, LONG, IFD after the pixels":  handTIFF(binary.BigEndian, 640, 480, true, true),
		"TIFF with 10000×10000":                handTIFF(binary.BigEndian, 10000, 10000, true, false),
	} {
		t.Run(name, func(t *testing.T) {
			if code := fileKind(t, img, testLimits()); code != accepted {
				t.Fatalf("refused with %s", code)
			}
		})
	}
}

func TestImagesRefused(t *testing.T) {
	png, jpg := goPNG(64, 48), noiseJPEG(64, 48, 1)
	notIHDR := bytes.Clone(png)
	copy(notIHDR[12:16], "tEXt")
	noSize := []byte{0xFF, 0xD8, 0xFF, 0xE0, 0, 16, 'J', 'F', 'I', 'F', 0, 1, 1, 0, 0, 1, 0, 1, 0, 0, 0xFF, 0xD9}
	noWidth := handTIFF(binary.LittleEndian, 640, 480, false, false)
	noWidth[10] = 0xFF // the first entry's tag 256 becomes 511
	cutThumb := withEXIFThumbnail(jpg, noiseJPEG(16, 16, 2))
	cutThumb = cutThumb[:len(cutThumb)-100]
	tiffFar := handTIFF(binary.BigEndian, 640, 480, false, false)
	binary.BigEndian.PutUint32(tiffFar[4:], 1<<30)
	for _, tt := range []struct {
		name string
		img  []byte
		code Kind
	}{
		{"PNG of 100000×100000", withPNGSize(png, 100000, 100000), ImageTooLarge},
		{"PNG of width 0", withPNGSize(png, 0, 48), ImageTooLarge},
		{"PNG of height 0", withPNGSize(png, 64, 0), ImageTooLarge},
		{"PNG of 2^31-1 squared", withPNGSize(png, 1<<31-1, 1<<31-1), ImageTooLarge},
		{"PNG cut before IEND", png[:len(png)-12], Truncated},
		{"PNG cut inside IEND", png[:len(png)-2], Truncated},
		{"PNG cut inside IHDR", png[:20], Truncated},
		{"PNG signature only", png[:8], Truncated},
		{"PNG without IHDR first", notIHDR, TypeRefused},
		{"JPEG without FFD9", jpg[:len(jpg)-2], Truncated},
		{"JPEG cut, its thumbnail whole", cutThumb, Truncated},
		{"JPEG with more than 64 KiB after FFD9", append(bytes.Clone(jpg), make([]byte, jpegTrailer+1)...), Truncated},
		{"JPEG of height 0", withJPEGSize(jpg, 64, 0), ImageTooLarge},
		{"JPEG of 65535×65535", withJPEGSize(jpg, 65535, 65535), ImageTooLarge},
		{"JPEG that declares no size", noSize, ImageTooLarge},
		{"JPEG signature only", jpg[:3], Truncated},
		{"TIFF of 20000×20000, II SHORT", handTIFF(binary.LittleEndian, 20000, 20000, false, false), ImageTooLarge},
		{"TIFF of width 0, MM LONG", handTIFF(binary.BigEndian, 0, 480, true, true), ImageTooLarge},
		{"TIFF without ImageWidth", noWidth, ImageTooLarge},
		{"TIFF whose IFD is past the end", tiffFar, Truncated},
		{"TIFF cut in its IFD", handTIFF(binary.BigEndian, 640, 480, true, true)[:640*480%(1<<16)+8+20], Truncated},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if code := fileKind(t, tt.img, testLimits()); code != tt.code {
				t.Fatalf("got %q, want %s", code, tt.code)
			}
		})
	}
}

// TestImagePixelRule: the bound is width×height ≤ MaxImagePixels, without
// overflow, and limits that leave it 0 admit no image (there is no
// default here: domain.NewFileRules refuses a 0).
func TestImagePixelRule(t *testing.T) {
	png := goPNG(64, 48)
	rules := func(max int64) Limits {
		r := testLimits()
		r.MaxImagePixels = max
		return r
	}
	for _, tt := range []struct {
		img  []byte
		max  int64
		code Kind
	}{
		{png, 64 * 48, accepted},
		{png, 64*48 - 1, ImageTooLarge},
		{withPNGSize(png, math.MaxUint32, math.MaxUint32), math.MaxInt64, ImageTooLarge},
		{withPNGSize(png, 1<<31-1, 1<<31-1), math.MaxInt64, accepted},
		{withPNGSize(png, 10001, 10000), 0, ImageTooLarge},
		{withPNGSize(png, 1, 1), 0, ImageTooLarge},
		{withPNGSize(png, 1, 1), -1, ImageTooLarge},
		{withPNGSize(png, 1, 1), 1, accepted},
	} {
		if code := fileKind(t, tt.img, rules(tt.max)); code != tt.code {
			t.Errorf("%d×%d, max %d: got %q, want %q", binary.BigEndian.Uint32(tt.img[16:]), binary.BigEndian.Uint32(tt.img[20:]), tt.max, code, tt.code)
		}
	}
}
