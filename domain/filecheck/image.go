package filecheck

import (
	"encoding/binary"
	"strconv"
)

// The image checks read a header at a known offset of the decoded content
// (the next chunk, segment or directory entry) as soon as a window holds
// it; what they read is at most 16 bytes long, less than a window carries.

// checkPixels refuses a declared size of 0 or of more than max pixels
// (every size when max is 0 or less). width*height is never computed: it
// may not fit in 64 bits.
func checkPixels(kind string, width, height uint64, max int64) *Finding {
	size := strconv.FormatUint(width, 10) + "×" + strconv.FormatUint(height, 10)
	if width == 0 || height == 0 {
		return refuse(ImageTooLarge, "la imagen "+kind+" declara un tamaño vacío ("+size+")")
	}
	if max <= 0 || width > uint64(max)/height {
		return refuse(ImageTooLarge, "la imagen "+kind+" declara "+size+" píxeles; el máximo es "+strconv.FormatInt(max, 10))
	}
	return nil
}

// pngCheck walks a PNG's chunks: the first must be IHDR, whose width and
// height are checked; the file is whole when the walk reaches IEND. What
// is searched for active markers (contract §10) is every byte of every
// chunk's data as it is, but for what is compressed: the compressed text
// of zTXt, iTXt and iCCP is searched inflated (pngText), an eXIf chunk
// is walked as the TIFF structure it is (tifftext.go), and the image
// data of IDAT and fdAT, when its bytes as they are hold a marker, is
// walked for its stored deflate blocks once the file has passed
// (pngdata.go). Bytes after IEND are searched too. A
// critical chunk the walk does not know is refused: a reader could not
// show the image, and the check cannot say what it holds.
type pngCheck struct {
	maxPixels  int64
	pos        int64 // the offset of the next chunk
	ihdr, iend bool
	text       textSpans
	ztext      pngText
	data       pngData
	dataText   textSpans // IDAT's and fdAT's bytes as they are, where a marker is only noted
	prev       string    // the type of the chunk before
}

func newPNGCheck(r Limits) contentCheck {
	return &pngCheck{maxPixels: r.MaxImagePixels, pos: 8, dataText: textSpans{note: true}}
}

func (c *pngCheck) check(w *window) *Finding {
	if fe := c.text.search(w); fe != nil {
		return fe
	}
	if fe := c.ztext.take(w); fe != nil {
		return fe
	}
	if fe := c.dataText.search(w); fe != nil {
		return fe
	}
	for !c.iend {
		need := 8 // length and type
		if !c.ihdr {
			need = 16 // and IHDR's width and height
		}
		if !w.has(c.pos, need) {
			return nil
		}
		b := w.buf[w.index(c.pos):]
		length, typ := binary.BigEndian.Uint32(b), string(b[4:8])
		if length > 1<<31-1 {
			return refuse(TypeRefused, "el archivo no es un PNG válido: un bloque declara más de 2 GiB")
		}
		if !c.ihdr {
			if typ != "IHDR" || length < 13 {
				return refuse(TypeRefused, "el archivo no es un PNG válido: no empieza por IHDR")
			}
			c.ihdr = true
			if fe := checkPixels("PNG", uint64(binary.BigEndian.Uint32(b[8:])), uint64(binary.BigEndian.Uint32(b[12:])), c.maxPixels); fe != nil {
				return fe
			}
		}
		data, end := c.pos+8, c.pos+8+int64(length)
		if fe := c.chunk(w, typ, data, end); fe != nil {
			return fe
		}
		c.pos, c.prev = end+4, typ // after the CRC
	}
	return nil
}

// chunk takes the chunk of type typ whose data is [data, end).
func (c *pngCheck) chunk(w *window, typ string, data, end int64) *Finding {
	switch typ {
	case "IDAT", "fdAT":
		if fe := c.dataText.add(w, data, end); fe != nil {
			return fe
		}
		return c.data.add(typ, c.prev, data, end)
	case "zTXt", "iTXt", "iCCP", "eXIf":
		return c.ztext.start(w, typ, data, end)
	case "IEND":
		c.iend = true
		return c.text.add(w, end+4, toEnd)
	}
	for i := 0; i < 4; i++ {
		if l := typ[i] | 0x20; l < 'a' || l > 'z' {
			return refuse(TypeRefused, "el archivo no es un PNG válido: un bloque tiene un tipo que no es de letras")
		}
	}
	switch typ {
	case "IHDR", "PLTE":
	default:
		if typ[0]&0x20 == 0 { // critical: a reader that does not know it cannot show the image
			return refuse(TypeRefused, "el PNG tiene un bloque crítico desconocido ("+typ+")")
		}
	}
	return c.text.add(w, data, end)
}

func (c *pngCheck) finish(size int64) *Finding {
	if !c.iend || c.pos > size {
		return refuse(Truncated, "el PNG está incompleto: no llega a su bloque final IEND")
	}
	return nil
}

// tiffCheck reads ImageWidth and ImageLength from a TIFF's first image
// directory (IFD0), in either byte order, as SHORT or LONG.
type tiffCheck struct {
	maxPixels           int64
	order               binary.ByteOrder
	pos                 int64 // the offset of the next thing to read
	entries             int   // IFD0 entries left; -1 before the count is read
	width, height       uint64
	hasWidth, hasHeight bool // the first of each counts, as in libtiff
	done                bool
}

func newTIFFCheck(r Limits) contentCheck {
	return &tiffCheck{maxPixels: r.MaxImagePixels, entries: -1}
}

func (c *tiffCheck) check(w *window) *Finding {
	for !c.done {
		switch {
		case c.order == nil && w.has(0, 8):
			c.order = binary.ByteOrder(binary.BigEndian)
			if w.buf[0] == 'I' {
				c.order = binary.LittleEndian
			}
			if c.pos = int64(c.order.Uint32(w.buf[4:])); c.pos < 8 {
				return refuse(TypeRefused, "el archivo no es un TIFF válido: su directorio de imagen está en la cabecera")
			}
		case c.order != nil && c.entries < 0 && w.has(c.pos, 2):
			c.entries = int(c.order.Uint16(w.buf[w.index(c.pos):]))
			c.pos += 2
		case c.entries == 0 || c.hasWidth && c.hasHeight:
			c.done = true
			return checkPixels("TIFF", c.width, c.height, c.maxPixels)
		case c.entries > 0 && w.has(c.pos, 12):
			c.entry(w.buf[w.index(c.pos):])
			c.pos += 12
			c.entries--
		default:
			return nil // the rest comes in a later window
		}
	}
	return nil
}

// entry reads one 12-byte IFD entry: tag, type, count, value.
func (c *tiffCheck) entry(b []byte) {
	tag, typ, count := c.order.Uint16(b), c.order.Uint16(b[2:]), c.order.Uint32(b[4:])
	var v uint64
	switch {
	case typ == 3 && count >= 1 && count <= 2: // SHORT, in the first half of the value field
		v = uint64(c.order.Uint16(b[8:]))
	case typ == 4 && count == 1: // LONG
		v = uint64(c.order.Uint32(b[8:]))
	default:
		return
	}
	switch {
	case tag == 256 && !c.hasWidth:
		c.width, c.hasWidth = v, true
	case tag == 257 && !c.hasHeight:
		c.height, c.hasHeight = v, true
	}
}

func (c *tiffCheck) finish(int64) *Finding {
	if !c.done {
		return refuse(Truncated, "el TIFF está incompleto: su directorio de imagen no está completo en el archivo")
	}
	return nil
}
