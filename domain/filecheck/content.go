package filecheck

import (
	"errors"
	"io"
)

// Limits are what Inspect holds a file to. Each is a bound that admits
// nothing at zero: no type when Allowed is empty, no byte when MaxBytes
// is 0, no image when MaxImagePixels is 0. Choosing them (and refusing
// a zero) is the caller's rule: domain.NewFileRules.
type Limits struct {
	Allowed         []string // type names, as Names spells them
	MaxBytes        int64    // the decoded size
	MaxImagePixels  int64    // width×height as an image's header declares it
	AllowPDFScripts bool     // let PDFs with active content through (contract §7: false)
	Decode          Decoder  // nil: encoding/base64's RawStdEncoding.Decode
}

// Decoder decodes base64 text of the standard alphabet without padding
// exactly as base64.RawStdEncoding.Decode does: the same bytes and count,
// CR and LF skipped, an error for the same texts (any error will do). It
// may write anywhere in dst, which holds at least
// base64.RawStdEncoding.DecodedLen(len(src)) bytes. A faster decoder (a
// SIMD one, from an adapter) is a Decoder; the standard library's is the
// plain one, and the default.
type Decoder func(dst, src []byte) (int, error)

// Content is a file that Inspect accepted: its type by its magic bytes,
// its decoded size and SHA-256, and its base64 text. Its bytes are not
// held decoded: Reader and WriteTo decode the text again as it is
// written, so a 20 MiB file does not sit in memory beside its 27 MiB of
// base64 (the memory bound is 1.5× the body), and a small one costs no
// copy (decoding again is cheaper than allocating and copying, with the
// service's SIMD Decoder).
type Content struct {
	source      string // the base64 text, prefix removed, padding trimmed
	decode      Decoder
	marks       []int // where in source each block of chunk bytes starts
	chunk       int
	Size        int64
	Ext         string // the type's name, from the magic bytes
	ContentType string
	SHA256      [32]byte
}

// Reader returns the decoded content, from the start. It is also an
// io.WriterTo, so io.Copy and io.CopyBuffer decode straight into the
// destination in large blocks.
func (c *Content) Reader() io.Reader {
	return &fileReader{d: b64Decoder{src: c.source, decode: c.decode}}
}

// WriteTo writes the decoded content to w.
func (c *Content) WriteTo(w io.Writer) (int64, error) {
	r := fileReader{d: b64Decoder{src: c.source, decode: c.decode}}
	return r.WriteTo(w)
}

// contentAt reads a Content's decoded bytes at any offset, for a check
// that reads the file again once it has passed (a TIFF's directories, a
// PNG's or PDF's second look). The file is decoded again from the start
// of the block that holds the offset (Inspect noted where each block's
// text starts), into a scratch of the pool that release gives back, and
// the last block decoded is kept for the next read. Each read and each
// block decoded spends work; errWork when the work refuses.
type contentAt struct {
	c     *Content
	wk    *work
	block int64  // the block in buf; -1 for none
	buf   []byte // the block decoded, in sc
	sc    *scratch
}

func newContentAt(c *Content, wk *work) *contentAt { return &contentAt{c: c, wk: wk, block: -1} }

// release gives a's scratch back to the pool; a reads nothing after.
func (a *contentAt) release() {
	if a.sc != nil {
		scratchPool.Put(a.sc)
		a.sc, a.buf, a.block = nil, nil, -1
	}
}

// ReadAt reads len(p) bytes at off, fewer (with io.EOF) at the end.
func (a *contentAt) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("negative offset")
	}
	if err := a.wk.err(readCost + int64(len(p))); err != nil {
		return 0, err
	}
	n := 0
	for n < len(p) && off < a.c.Size {
		size := int64(a.c.chunk)
		if k := off / size; k != a.block {
			if a.sc == nil {
				a.sc = scratchPool.Get().(*scratch)
			}
			a.wk.decodes++
			if err := a.wk.err(int64(a.c.chunk)); err != nil {
				return n, err
			}
			d := b64Decoder{src: a.c.source[a.c.marks[k]:], decode: a.c.decode}
			m, err := d.read(a.sc.win[:a.c.chunk], a.sc.tmp)
			if err != nil && err != io.EOF {
				return n, err
			}
			a.buf, a.block = a.sc.win[:m], k
		}
		src := a.buf[min(off-a.block*size, int64(len(a.buf))):]
		if len(src) == 0 {
			break
		}
		k := copy(p[n:], src)
		n += k
		off += int64(k)
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}
