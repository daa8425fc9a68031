package filecheck

import (
	"encoding/base64"
	"errors"
	"io"
	"strings"
	"sync"
	"unsafe"
)

// The base64 text is decoded in blocks of decodedChunk bytes: large
// enough that each call to the decoder runs its fast path for long, small
// enough that a block and its text stay in the CPU's cache while they are
// hashed and scanned.
const (
	decodedChunk = 96 << 10             // a multiple of 3
	encodedChunk = decodedChunk / 3 * 4 // the base64 characters that give it
)

var errBadBase64 = errors.New("invalid base64")

// b64Text returns the base64 characters of a Base64String: a data: URL
// prefix removed, trailing padding and whitespace trimmed. The padding is
// optional, so it is dropped and the rest decoded without it.
func b64Text(s string) (string, *Finding) {
	if strings.HasPrefix(s, "data:") {
		i := strings.Index(s, ";base64,")
		if i < 0 || i > 200 {
			return "", refuse(Undecodable, "prefijo data: sin ;base64,")
		}
		s = s[i+len(";base64,"):]
	}
	s = strings.TrimRight(s, "= \t\r\n")
	if s == "" {
		return "", refuse(Undecodable, "Base64String está vacío")
	}
	return s, nil
}

// decodedSize is the size that s decodes to, counted without decoding;
// valid only when s is valid base64.
func decodedSize(s string) int64 {
	chars := int64(len(s))
	for _, c := range []string{" ", "\t", "\r", "\n"} {
		chars -= int64(strings.Count(s, c))
	}
	return chars * 3 / 4
}

// b64Decoder decodes base64 text of the standard alphabet without padding,
// with spaces, tabs, CRs and LFs anywhere, in aligned blocks. Text without
// whitespace (what most clients send) is decoded as it is; once a block
// shows whitespace, each block is compacted before it is decoded.
type b64Decoder struct {
	src    string  // the text not yet decoded
	dirty  bool    // the text has whitespace: compact each block
	decode Decoder // nil: the standard library's
}

// run decodes src into dst with d's Decoder.
func (d *b64Decoder) run(dst, src []byte) (int, error) {
	if d.decode == nil {
		return base64.RawStdEncoding.Decode(dst, src)
	}
	return d.decode(dst, src)
}

// read decodes into dst (len a multiple of 3) the next len(dst) bytes or,
// at the end of the text, what is left; tmp holds the characters and
// must be at least len(dst)/3*4 long. It returns io.EOF when the text is
// done and errBadBase64 when it is not base64.
func (d *b64Decoder) read(dst, tmp []byte) (int, error) {
	if len(d.src) == 0 {
		return 0, io.EOF
	}
	want := len(dst) / 3 * 4
	if !d.dirty {
		k := min(want, len(d.src))
		// The decoder only reads its source: the text itself, not a copy.
		chars := unsafe.Slice(unsafe.StringData(d.src), k)
		n, err := d.run(dst, chars)
		// The decoder skips CR and LF itself, but then the block is no
		// longer aligned and decodes to fewer bytes than its length says.
		if err == nil && n == k/4*3+max(k%4-1, 0) {
			d.src = d.src[k:]
			return n, nil
		}
		d.dirty = true
	}
	n := 0
	for n < want && len(d.src) > 0 {
		k := copy(tmp[n:want], d.src)
		d.src = d.src[k:]
		n += removeSpace(tmp[n : n+k])
	}
	if n == 0 {
		return 0, io.EOF // only whitespace was left
	}
	m, err := d.run(dst, tmp[:n])
	if err != nil {
		return m, errBadBase64
	}
	return m, nil
}

// removeSpace moves the bytes of p that are not a space, tab, CR or LF to
// its front and returns how many there are. It finds whitespace eight
// bytes at a time and moves the runs between it with copy.
func removeSpace(p []byte) int {
	i := IndexBelow(p, ' '+1) // a space or below: all of base64's whitespace, no base64 character
	w := i
	for i < len(p) {
		if c := p[i]; c == ' ' || c == '\t' || c == '\r' || c == '\n' {
			i++
			continue
		}
		j := i + 1 + IndexBelow(p[i+1:], ' '+1)
		w += copy(p[w:], p[i:j])
		i = j
	}
	return w
}

// scratch is the memory one decode needs; it is reused across files.
type scratch struct {
	win []byte // the decoded window: carried bytes, then a block
	tmp []byte // the block's base64 characters
}

var scratchPool = sync.Pool{New: func() any {
	return &scratch{win: make([]byte, windowCarry+decodedChunk), tmp: make([]byte, encodedChunk)}
}}

// fileReader decodes a Content's text again, for Reader and WriteTo.
// Read decodes a block at a time into a scratch of the pool, which goes
// back once the last byte is handed out (a reader left before that
// leaves it to the collector). WriteTo carries on in Read's scratch (or
// takes one) and gives it back when it returns.
type fileReader struct {
	d    b64Decoder
	sc   *scratch
	left []byte // decoded by Read into sc, not yet returned
}

// Read decodes the next bytes into p.
func (r *fileReader) Read(p []byte) (int, error) {
	if len(r.left) == 0 {
		if len(r.d.src) == 0 {
			r.release()
			return 0, io.EOF
		}
		if r.sc == nil {
			r.sc = scratchPool.Get().(*scratch)
		}
		n, err := r.d.read(r.sc.win[:decodedChunk], r.sc.tmp)
		if err != nil {
			r.release()
			return 0, err
		}
		r.left = r.sc.win[:n]
	}
	n := copy(p, r.left)
	r.left = r.left[n:]
	if len(r.left) == 0 && len(r.d.src) == 0 {
		r.release()
	}
	return n, nil
}

// release gives r's scratch back to the pool; nothing of it is left to
// hand out.
func (r *fileReader) release() {
	if r.sc != nil {
		scratchPool.Put(r.sc)
		r.sc, r.left = nil, nil
	}
}

// WriteTo decodes the rest of the content into w, a block at a time.
func (r *fileReader) WriteTo(w io.Writer) (int64, error) {
	var total int64
	if len(r.left) > 0 {
		n, err := w.Write(r.left)
		total += int64(n)
		r.left = r.left[n:]
		if err != nil {
			return total, err
		}
	}
	s := r.sc // Read's, when it took one
	if s == nil {
		s = scratchPool.Get().(*scratch)
	}
	r.sc, r.left = nil, nil
	defer scratchPool.Put(s)
	for {
		n, err := r.d.read(s.win[:decodedChunk], s.tmp)
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
		m, err := w.Write(s.win[:n])
		total += int64(m)
		if err != nil {
			return total, err
		}
	}
}
