package filecheck

import (
	"bytes"
	"encoding/binary"
	"strconv"
)

// jpegTrailer is how many bytes may follow a JPEG's end marker: cameras
// and phones pad files or append a few KiB of their own metadata there
// (Samsung's SEFT trailer, zero padding to a block). More than that is
// not a JPEG ending with its end marker, but a JPEG with something else
// appended (a video, a second image, an archive).
const jpegTrailer = 64 << 10

// jpegCheck walks a JPEG's segments by their lengths, so that what an
// APP segment holds (an EXIF thumbnail with its own frame header and end
// marker) is skipped whole. It checks the size in each frame header
// (SOFn) and finds the end marker (EOI) where the structure puts it:
// after the entropy-coded data of the last scan. What readers take as
// text, the COM and APPn segments (EXIF, XMP, ICC, comments), stray
// bytes between segments and any bytes after EOI, is searched for active
// markers, and so are the tables (a Huffman table's symbols are any
// bytes a writer chooses: searchedSegment); frame and scan headers and
// the scans are not.
type jpegCheck struct {
	maxPixels int64
	pos       int64 // the next marker, or where the search for it resumes
	inScan    bool  // in entropy-coded data, looking for the marker after it
	sof       bool
	eoi       int64 // the offset after the end marker; 0 until it is found
	text      textSpans
}

func newJPEGCheck(r Limits) contentCheck { return &jpegCheck{maxPixels: r.MaxImagePixels, pos: 2} }

// isSOF reports whether marker m starts a frame: C0–CF but DHT (C4), JPG
// (C8) and DAC (CC).
func isSOF(m byte) bool { return m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC }

func (c *jpegCheck) check(w *window) *Finding {
	if fe := c.text.search(w); fe != nil {
		return fe
	}
	for c.eoi == 0 && w.has(c.pos, 2) {
		b := w.buf[w.index(c.pos):]
		if c.inScan {
			// Inside a scan FF is followed by 00 (a stuffed FF), a restart
			// marker D0–D7 or fill; anything else is the next marker.
			i := bytes.IndexByte(b[:len(b)-1], 0xFF)
			if i < 0 {
				c.pos = w.end() - 1
				return nil
			}
			if x := b[i+1]; x == 0x00 || x >= 0xD0 && x <= 0xD7 || x == 0xFF {
				c.pos += int64(i) + 1
				continue
			}
			c.pos += int64(i)
			c.inScan = false
			continue
		}
		if b[0] != 0xFF {
			// Stray bytes before a marker: decoders skip them, and what
			// takes the file as text reads them: they are searched.
			i := bytes.IndexByte(b, 0xFF)
			end := w.end()
			if i >= 0 {
				end = c.pos + int64(i)
			}
			if fe := c.text.add(w, c.pos, end); fe != nil {
				return fe
			}
			c.pos = end
			continue
		}
		switch m := b[1]; {
		case m == 0xFF: // fill before a marker
			c.pos++
		case m == 0xD9:
			c.eoi = c.pos + 2
			if fe := c.text.add(w, c.eoi, toEnd); fe != nil {
				return fe
			}
		case m == 0x00 || m == 0x01 || m >= 0xD0 && m <= 0xD8: // no length follows
			c.pos += 2
		default:
			need := 4
			if isSOF(m) {
				need = 9
			}
			if !w.has(c.pos, need) {
				return nil
			}
			length := int64(binary.BigEndian.Uint16(b[2:]))
			if length < int64(need-2) {
				return refuse(TypeRefused, "el archivo no es un JPEG válido: el segmento "+strconv.FormatInt(int64(m), 16)+" es demasiado corto")
			}
			if isSOF(m) {
				c.sof = true
				width, height := binary.BigEndian.Uint16(b[7:]), binary.BigEndian.Uint16(b[5:])
				if fe := checkPixels("JPEG", uint64(width), uint64(height), c.maxPixels); fe != nil {
					return fe
				}
			}
			if searchedSegment(m) {
				if fe := c.text.add(w, c.pos+4, c.pos+2+length); fe != nil {
					return fe
				}
			}
			c.inScan = m == 0xDA
			c.pos += 2 + length
		}
	}
	return nil
}

func (c *jpegCheck) finish(size int64) *Finding {
	switch {
	case c.eoi == 0:
		return refuse(Truncated, "el JPEG está incompleto: no llega a su marcador de fin (FFD9)")
	case !c.sof:
		return refuse(ImageTooLarge, "la imagen JPEG no declara su tamaño")
	case size-c.eoi > jpegTrailer:
		return refuse(Truncated, "el JPEG no termina con su marcador de fin (FFD9): le siguen "+
			strconv.FormatInt(size-c.eoi, 10)+" bytes; se admiten "+strconv.Itoa(jpegTrailer))
	}
	return nil
}

// searchedSegment reports whether the payload of the segment that marker
// m starts is searched as text: every one a reader may skip or take bytes
// from as they are (APPn, COM, and the tables: a Huffman table's symbols
// are any bytes a writer chooses), but those of fixed fields that readers
// check to the byte (a frame's or scan's header, DRI, DNL), where a
// marker as short as "<?=" can be a width and a height.
func searchedSegment(m byte) bool {
	return !isSOF(m) && m != 0xDA && m != 0xDD && m != 0xDC
}
