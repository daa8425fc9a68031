package filecheck

import (
	"encoding/binary"
	"io"
	"strconv"
)

// Bounds on following a TIFF's directories to its ASCII fields, so that
// directories that point at each other, or fields that all name the same
// megabytes, cost a bounded amount of reading. A TIFF past a bound cannot
// be inspected and is refused: a multi-page scan has a directory per page
// of a few dozen entries, and its text fields are short.
const (
	maxTIFFDirs    = 4096     // directories of one TIFF
	maxTIFFEntries = 1 << 18  // entries of all its directories
	maxTIFFText    = 16 << 20 // bytes of all its ASCII fields
)

// The tags whose value is the offset of another directory: SubIFDs, and
// the EXIF, GPS and interoperability directories.
const (
	tagSubIFDs  = 330
	tagExifIFD  = 34665
	tagGPSIFD   = 34853
	tagInterIFD = 40965
)

// reread searches the TIFF's ASCII fields (contract §10): those of every
// directory of the chain the header starts and of the directories their
// entries point to. Offsets may point anywhere, backwards too, so this
// reads the file again once it has passed. Strips and tiles are never
// read, nor anything a directory does not name as ASCII. An offset past
// the end, or a directory seen before, is skipped: a reader cannot read
// more there.
func (c *tiffCheck) reread(at io.ReaderAt, size int64) *Finding {
	if c.order == nil {
		return nil // finish refused it
	}
	t := tiffText{at: at, order: c.order, size: size, buf: make([]byte, 32<<10), seen: map[int64]bool{}}
	var head [8]byte
	if _, err := at.ReadAt(head[:], 0); err != nil {
		return nil
	}
	queue := []int64{int64(c.order.Uint32(head[4:]))}
	for len(queue) > 0 {
		off := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		more, fe := t.dir(off)
		if fe != nil {
			return fe
		}
		queue = append(queue, more...)
	}
	return nil
}

// tiffText is the walk of reread.
type tiffText struct {
	at             io.ReaderAt
	order          binary.ByteOrder
	size           int64
	buf            []byte
	seen           map[int64]bool
	entries, bytes int64
}

func tiffUninspectable(why string) *Finding {
	return refuse(TypeRefused, "el TIFF no se puede inspeccionar: "+why)
}

// dir searches the ASCII fields of the directory at off and returns the
// offsets of the directories it points to.
func (t *tiffText) dir(off int64) ([]int64, *Finding) {
	if off < 8 || off >= t.size || t.seen[off] {
		return nil, nil
	}
	if t.seen[off] = true; len(t.seen) > maxTIFFDirs {
		return nil, tiffUninspectable("tiene más de " + strconv.Itoa(maxTIFFDirs) + " directorios")
	}
	var b [12]byte
	if _, err := t.at.ReadAt(b[:2], off); err != nil {
		return nil, nil
	}
	n := int64(t.order.Uint16(b[:]))
	if t.entries += n; t.entries > maxTIFFEntries {
		return nil, tiffUninspectable("sus directorios tienen más de " + strconv.Itoa(maxTIFFEntries) + " entradas")
	}
	var more []int64
	for i := int64(0); i < n; i++ {
		if _, err := t.at.ReadAt(b[:], off+2+12*i); err != nil {
			return more, nil
		}
		tag, typ, count := t.order.Uint16(b[:]), t.order.Uint16(b[2:]), int64(t.order.Uint32(b[4:]))
		value := int64(t.order.Uint32(b[8:]))
		switch {
		case typ == 2 && count <= 4: // ASCII, in the value field itself
			if m := activeContent(b[8 : 8+count]); m != "" {
				return nil, polyglot(m)
			}
		case typ == 2:
			if fe := t.text(value, count); fe != nil {
				return nil, fe
			}
		case (typ == 4 || typ == 13) && count == 1 && // LONG or IFD
			(tag == tagSubIFDs || tag == tagExifIFD || tag == tagGPSIFD || tag == tagInterIFD):
			more = append(more, value)
		case (typ == 4 || typ == 13) && tag == tagSubIFDs && count <= maxTIFFDirs:
			for j := int64(0); j < count; j++ {
				if _, err := t.at.ReadAt(b[:4], value+4*j); err != nil {
					break
				}
				more = append(more, int64(t.order.Uint32(b[:])))
			}
		}
	}
	if _, err := t.at.ReadAt(b[:4], off+2+12*n); err == nil {
		more = append(more, int64(t.order.Uint32(b[:]))) // the next directory, 0 for none
	}
	return more, nil
}

// text searches the ASCII field of count bytes at off, within the file.
func (t *tiffText) text(off, count int64) *Finding {
	count = max(0, min(count, t.size-off))
	if t.bytes += count; t.bytes > maxTIFFText {
		return tiffUninspectable("sus campos de texto suman más de " + strconv.Itoa(maxTIFFText>>20) + " MiB")
	}
	r := io.NewSectionReader(t.at, off, count)
	if m, _ := searchStream(t.buf, r.Read); m != "" { // what cannot be read, a reader cannot read either
		return polyglot(m)
	}
	return nil
}
