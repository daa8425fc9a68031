package filecheck

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"strconv"
)

// Bounds on a PNG's compressed text, so that a deflate bomb in a zTXt
// or iTXt chunk costs at most maxPNGInflated bytes of inflating and
// searching and maxPNGTextChunk bytes of memory. A PNG past a bound
// cannot be inspected and is refused: real text chunks (XMP, EXIF and
// ICC profiles written as text) are kilobytes, not megabytes.
const (
	maxPNGTextChunk = 4 << 20  // bytes of one zTXt or iTXt chunk, held while it arrives
	maxPNGInflated  = 16 << 20 // inflated bytes of all of one PNG's text chunks
)

// pngText holds a zTXt, iTXt, iCCP or eXIf chunk's data as it arrives
// and, once the chunk is whole, searches it. Of a zTXt, iTXt or iCCP
// chunk, that is every byte as it is but the compressed text or profile,
// which is searched inflated (a stored block's bytes with it), and what
// follows the compressed stream as it is; an eXIf chunk is walked as
// the TIFF structure it is (tifftext.go).
type pngText struct {
	typ      string
	from, to int64 // the offsets of the chunk's data; from == to when none is held
	data     []byte
	inflated int64
	buf      []byte // inflated text, searched a block at a time
}

// start holds the data of the chunk of type typ at [from, to).
func (t *pngText) start(w *window, typ string, from, to int64) *Finding {
	if to-from > maxPNGTextChunk {
		return refuse(TypeRefused, "el PNG no se puede inspeccionar: su bloque "+typ+" supera "+strconv.Itoa(maxPNGTextChunk>>20)+" MiB")
	}
	t.typ, t.from, t.to, t.data = typ, from, to, t.data[:0]
	return t.take(w)
}

// take holds the chunk's data that w brings and, once the chunk is
// whole, searches it.
func (t *pngText) take(w *window) *Finding {
	if t.from >= t.to {
		return nil
	}
	next, upTo := t.from+int64(len(t.data)), min(t.to, w.end())
	if upTo > next {
		t.data = append(t.data, w.buf[w.index(next):w.index(upTo)]...)
	}
	if upTo < t.to {
		return nil
	}
	t.from = t.to
	if t.typ == "eXIf" {
		return t.exif(w.wk)
	}
	return t.search()
}

// exif walks an eXIf chunk's data as a TIFF structure: one that does not
// start as a TIFF does cannot be read, and is refused.
func (t *pngText) exif(wk *work) *Finding {
	d := t.data
	var order binary.ByteOrder
	switch {
	case bytes.HasPrefix(d, []byte("II*\x00")):
		order = binary.LittleEndian
	case bytes.HasPrefix(d, []byte("MM\x00*")):
		order = binary.BigEndian
	default:
		return refuse(TypeRefused, "el PNG no se puede inspeccionar: su bloque eXIf no es una estructura TIFF")
	}
	return walkTIFF(bytes.NewReader(d), int64(len(d)), order, 0, wk)
}

// search searches a whole chunk's data. A chunk without the separators
// of its type is searched whole, as text: no reader inflates any of it.
func (t *pngText) search() *Finding {
	d := t.data
	key := bytes.IndexByte(d, 0) // the keyword ends
	var head, text []byte        // what is text as it is, and what is compressed text
	switch {
	case key < 0:
		head = d
	case t.typ == "zTXt" || t.typ == "iCCP": // keyword (profile name), 0, method, compressed text (profile)
		head, text = d[:key], d[min(key+2, len(d)):]
	default: // iTXt: keyword, 0, flag, method, language, 0, translated keyword, 0, text
		rest := d[min(key+3, len(d)):]
		lang := bytes.IndexByte(rest, 0)
		tkey := -1
		if lang >= 0 {
			tkey = bytes.IndexByte(rest[lang+1:], 0)
		}
		switch {
		case lang < 0 || tkey < 0:
			head = d
		case d[key+1] == 0: // not compressed
			head = d
		default:
			at := len(d) - len(rest) + lang + 1 + tkey + 1
			head, text = d[:at], d[at:]
		}
	}
	if m := activeContent(head); m != "" {
		return polyglot(m)
	}
	if text == nil {
		return nil
	}
	m, over, rest := t.inflate(text)
	if m == "" && !over {
		m = activeContent(rest)
	}
	switch {
	case over:
		return refuse(TypeRefused, "el PNG no se puede inspeccionar: su texto comprimido supera "+strconv.Itoa(maxPNGInflated>>20)+" MiB al descomprimirse")
	case m != "":
		return polyglot(m)
	}
	return nil
}

// inflate searches the zlib data z as it inflates, within the PNG's
// budget; over says the budget ran out first. Data that is corrupt is
// searched as far as it inflates: a reader cannot read further. rest is
// what was not read of z, which no decoder reads either (all of z when
// it does not start as zlib).
func (t *pngText) inflate(z []byte) (marker string, over bool, rest []byte) {
	src := bytes.NewReader(z) // an io.ByteReader: zlib reads no further than the stream
	zr, err := zlib.NewReader(src)
	if err != nil {
		return "", false, z
	}
	defer zr.Close()
	if t.buf == nil {
		t.buf = make([]byte, 32<<10)
	}
	m, err := searchStream(t.buf, func(p []byte) (int, error) {
		k, err := zr.Read(p)
		if t.inflated += int64(k); t.inflated > maxPNGInflated {
			return k, errOverBudget
		}
		return k, err
	})
	return m, errors.Is(err, errOverBudget), z[len(z)-src.Len():]
}

var errOverBudget = errors.New("over the inflating budget")
