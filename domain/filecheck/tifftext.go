package filecheck

import (
	"bufio"
	"encoding/binary"
	"io"
	"slices"
	"strconv"
)

// Bounds on a TIFF structure's directories (a TIFF file's, a PNG's
// eXIf chunk's), so that what its offsets and counts name costs a
// bounded amount of memory; the reading itself is bounded by the work
// (work.go). A TIFF past a bound cannot be inspected and is refused: a
// multi-page scan has a directory per page of a few dozen entries, and
// a few strips or tiles per page.
const (
	maxTIFFDirs    = 4096    // directories of one TIFF
	maxTIFFEntries = 1 << 16 // entries of all its directories
	maxTIFFSpans   = 1 << 16 // strips, tiles and text values it names, all directories together
)

// The tags the walk reads: the directories an entry points to (SubIFDs,
// and the EXIF, GPS and interoperability directories), the image data
// and how it is compressed, a JPEG thumbnail, and the text in byte
// values that writers declare as LONG (IPTC).
const (
	tagSubIFDs      = 330
	tagExifIFD      = 34665
	tagGPSIFD       = 34853
	tagInterIFD     = 40965
	tagWidth        = 256
	tagLength       = 257
	tagCompression  = 259
	tagStripOffsets = 273
	tagStripCounts  = 279
	tagTileOffsets  = 324
	tagTileCounts   = 325
	tagThumbOffset  = 513
	tagThumbLength  = 514
	tagIPTC         = 33723
)

// reread searches a TIFF after its one pass (contract §10): every byte
// of it but the image data that is compressed (tiffWalk).
func (c *tiffCheck) reread(at io.ReaderAt, size int64, wk *work) *Finding {
	if c.order == nil {
		return nil // finish refused it
	}
	return walkTIFF(at, size, c.order, c.maxPixels, wk)
}

// tiffUninspectable is the refusal of a TIFF structure the walk cannot
// read whole.
func tiffUninspectable(why string) *Finding {
	return refuse(TypeRefused, "el TIFF no se puede inspeccionar: "+why)
}

// span is a stretch [off, off+n) of a TIFF structure. TIFF's offsets and
// counts are 32 bits.
type span struct{ off, n uint32 }

func (s span) end() int64 { return int64(s.off) + int64(s.n) }

// tiffWalk reads the directories of a TIFF structure of size bytes: the
// chain the header starts and every directory an entry points to. Each
// directory and each value it names must lie within the structure, and
// no directory may be reached twice: one that cannot be read whole is
// refused (fail closed), as a reader would see something the check did
// not. What it searches is then every byte as it is but the image data:
// strips and tiles stored as they are are searched as pixels
// (pixeltext.go); those whose Compression compresses them, and a JPEG
// thumbnail, are skipped, but deflated ones are walked for their stored
// blocks (deflatewalk.go); and a value of bytes (ASCII, BYTE, UNDEFINED,
// UTF-8: text, XMP, UserComment, the Windows XP tags, IPTC) is searched
// as text even where it lies in image data.
type tiffWalk struct {
	at         io.ReaderAt
	order      binary.ByteOrder
	size       int64
	wk         *work
	buf        []byte
	seen       map[int64]bool
	entries    int
	compressed []span // image data not searched as it is
	deflated   []span // of those, the zlib streams walked for stored blocks
	pixels     []span // image data stored as it is, searched as pixels
	text       []span // values of bytes
	deflate    *deflateWalk
	bufr       *bufio.Reader
	maxPixels  int64 // every image directory's bound; 0: not an image (a PNG's eXIf)
}

// walkTIFF walks and searches the TIFF structure of size bytes at at,
// whose byte order is order. In a TIFF file (maxPixels > 0) every
// directory that declares a size is held to maxPixels: a reader shows
// page 2 as readily as page 1.
func walkTIFF(at io.ReaderAt, size int64, order binary.ByteOrder, maxPixels int64, wk *work) *Finding {
	t := tiffWalk{at: at, order: order, size: size, wk: wk, buf: make([]byte, 32<<10), seen: map[int64]bool{}, maxPixels: maxPixels}
	if fe := t.dirs(); fe != nil {
		return fe
	}
	return t.search()
}

// read reads len(p) bytes at off, which the caller has checked lie
// within the structure.
func (t *tiffWalk) read(p []byte, off int64) *Finding {
	if _, err := t.at.ReadAt(p, off); err != nil {
		if fe := t.wk.cause(err); fe != nil {
			return fe
		}
		return tiffUninspectable("no se pudo leer en el desplazamiento " + strconv.FormatInt(off, 10))
	}
	return nil
}

// within refuses a stretch of n bytes at off that is not inside the
// structure.
func (t *tiffWalk) within(what string, off, n int64) *Finding {
	if off < 0 || n < 0 || off > t.size || n > t.size-off {
		return tiffUninspectable(what + " está fuera del archivo")
	}
	return nil
}

// dirs walks every directory, depth first from the header's.
func (t *tiffWalk) dirs() *Finding {
	var head [8]byte
	if fe := t.within("la cabecera", 0, 8); fe != nil {
		return fe
	}
	if fe := t.read(head[:], 0); fe != nil {
		return fe
	}
	queue := []int64{int64(t.order.Uint32(head[4:]))}
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

// search searches what the walk found to search, in the order of the
// offsets, so that each block of the file is decoded about once.
func (t *tiffWalk) search() *Finding {
	byOff := func(a, b span) int { return int(int64(a.off) - int64(b.off)) }
	for _, l := range [][]span{t.compressed, t.deflated, t.pixels, t.text} {
		slices.SortFunc(l, byOff)
	}
	image := merged(slices.SortedFunc(slices.Values(append(slices.Clone(t.compressed), t.pixels...)), byOff))
	// Everything but the image data, as it is.
	var from int64
	for _, s := range image {
		if fe := t.searchRaw(from, int64(s.off), markerIn); fe != nil {
			return fe
		}
		from = s.end()
	}
	if fe := t.searchRaw(from, t.size, markerIn); fe != nil {
		return fe
	}
	for _, s := range merged(t.pixels) {
		if fe := t.searchRaw(int64(s.off), s.end(), pixelMarkerIn); fe != nil {
			return fe
		}
	}
	// Text values that lie in image data, which the first pass skipped.
	i := 0 // the first stretch of image data that ends after v starts
	for _, v := range t.text {
		for i < len(image) && image[i].end() <= int64(v.off) {
			i++
		}
		if i < len(image) && int64(image[i].off) < v.end() {
			if fe := t.searchRaw(int64(v.off), v.end(), markerIn); fe != nil {
				return fe
			}
		}
	}
	for _, s := range t.deflated {
		if fe := t.storedBlocks(s); fe != nil {
			return fe
		}
	}
	return nil
}

// searchRaw searches the bytes [from, to) as they are, with find.
func (t *tiffWalk) searchRaw(from, to int64, find func([]byte, int, int) string) *Finding {
	if from >= to {
		return nil
	}
	r := io.NewSectionReader(t.at, from, to-from)
	m, err := searchStreamWith(t.buf, r.Read, find)
	if fe := t.wk.cause(err); fe != nil {
		return fe
	}
	if m != "" {
		return polyglot(m)
	}
	return nil
}

// merged returns sorted spans with those that overlap or touch joined.
func merged(s []span) []span {
	out := s[:0]
	for _, x := range s {
		if k := len(out) - 1; k >= 0 && int64(x.off) <= out[k].end() {
			out[k].n = uint32(max(out[k].end(), x.end()) - int64(out[k].off))
			continue
		}
		out = append(out, x)
	}
	return out
}
