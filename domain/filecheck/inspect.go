package filecheck

import (
	"bytes"
	"crypto/sha256"
	"io"
	"slices"
	"strconv"
	"strings"
)

// The decoded content is checked in windows. Each window starts with the
// last windowCarry bytes of the one before: lookBehind bytes already
// checked, which a check may look back at (the "end" of "endstream"), and
// lookAhead bytes that were not, so that every token a check reads from a
// position before the window's limit is whole inside the window: a token
// split by a block boundary is seen once, whole, in the next window.
const (
	lookBehind  = 32  // the most read back: the "N G" before a PDF object's obj keyword
	lookAhead   = 256 // the most read on: a PDF name of 16 characters, each written #xx, and the value after it
	windowCarry = lookBehind + lookAhead
)

// window is a stretch of the decoded content.
type window struct {
	buf   []byte
	base  int64 // offset in the file of buf[0]
	fresh int   // buf[fresh:] were not in the previous window
	from  int64 // the first offset the checks handle in this window
	limit int64 // the offset where they stop; the rest comes again
	final bool  // no bytes follow buf
	wk    *work // the file's work, for a check that reads more than the window
}

func (w *window) index(off int64) int { return int(off - w.base) }

func (w *window) end() int64 { return w.base + int64(len(w.buf)) }

// has reports whether w holds the n bytes at off.
func (w *window) has(off int64, n int) bool { return off >= w.base && off+int64(n) <= w.end() }

// contentCheck is a check that reads the decoded content as it passes.
// check handles the offsets [w.from, w.limit) and may read the whole of
// w.buf; finish is called once after the last window, with the size.
type contentCheck interface {
	check(w *window) *Finding
	finish(size int64) *Finding
}

// rereader is a check that reads the file again, at offsets it found as
// it passed, once every byte has passed and every check has finished.
// Every read spends work (work.go), and a reader's errWork says that the
// work has ended it (work.cause).
type rereader interface {
	reread(at io.ReaderAt, size int64, wk *work) *Finding
}

// Inspect checks base64 text (a report's Base64String) without keeping
// its decoded bytes: the standard alphabet with optional padding,
// CR/LF/tab/space ignored, a data: URL prefix removed. The size limit is
// checked before decoding; then one streaming pass types the content by
// its magic bytes, runs the checks of that type (which also search the
// parts that readers take as text for active markers, polyglot.go) and
// computes its SHA-256; a TIFF's directories are then read again
// (rereader). It returns the content or why it is refused, never both.
func Inspect(text string, lim Limits) (*Content, *Finding) { return InspectUntil(text, lim, nil) }

// InspectUntil is Inspect ended early when stop is closed (the request
// that sent the file is gone or out of time): it then returns a finding
// of Kind Stopped. It looks at stop between blocks of the decoded
// content and as its checks spend work (work.go); nil never closes.
func InspectUntil(text string, lim Limits, stop <-chan struct{}) (*Content, *Finding) {
	return inspectIn(text, lim, decodedChunk, &work{stop: stop})
}

// inspectIn is Inspect decoding chunk bytes at a time (a multiple of 3,
// at most decodedChunk); tests make it small to put block boundaries
// everywhere. wk counts the work and holds the stop channel.
func inspectIn(s string, rules Limits, chunk int, wk *work) (*Content, *Finding) {
	s, fe := b64Text(s)
	if fe != nil {
		return nil, fe
	}
	// len(s) bounds the size from above; count exactly only near the limit.
	if int64(len(s))*3/4 > rules.MaxBytes && decodedSize(s) > rules.MaxBytes {
		return nil, refuse(TooLarge, "el archivo supera el máximo de "+strconv.FormatInt(rules.MaxBytes, 10)+" bytes")
	}
	sc := scratchPool.Get().(*scratch)
	defer scratchPool.Put(sc)
	f := &Content{source: s, decode: rules.Decode}
	d := b64Decoder{src: s, decode: rules.Decode}
	h := sha256.New()
	var checks []contentCheck
	typed := false
	var head []byte
	var w window
	carry := 0
	f.chunk = chunk
	wk.limit = maxWork(int64(len(s)) * 3 / 4)
	for !w.final {
		if wk.stopped() {
			return nil, stoppedFinding()
		}
		f.marks = append(f.marks, len(s)-len(d.src))
		n, err := d.read(sc.win[carry:carry+chunk], sc.tmp)
		if err != nil && err != io.EOF {
			return nil, refuse(Undecodable, "Base64String no es base64 válido")
		}
		h.Write(sc.win[carry : carry+n])
		f.Size += int64(n)
		w = window{buf: sc.win[:carry+n], base: f.Size - int64(carry+n), fresh: carry, from: w.limit, final: err == io.EOF, wk: wk}
		w.limit = w.end()
		if !w.final {
			w.limit = max(w.from, w.end()-lookAhead)
		}
		// The type's own check, once the type is known, starts with every
		// byte so far, all new to it: typing needs 16 bytes, which the
		// window still holds (it carries more), so a file too small to be
		// typed in its first window, like a 15-byte PDF, has none of its
		// bytes taken for already seen. A file that does not start with a
		// signature is held (head) until a PDF header is found in its
		// first KiB or cannot be (sniff).
		if !typed && (len(w.buf) >= 16 || w.final) {
			first := w
			first.fresh = 0
			if head != nil {
				head = append(head, w.buf[w.fresh:]...)
				first.buf, first.base = head, 0
			}
			t, ok, more := sniff(first.buf, w.final)
			switch {
			case more && head == nil:
				head = bytes.Clone(w.buf)
			case more:
			case !ok || !slices.Contains(rules.Allowed, t.ext):
				return nil, refuse(TypeRefused, "tipo de archivo no permitido; se aceptan "+strings.Join(rules.Allowed, ", "))
			default:
				typed, f.Ext, f.ContentType, head = true, t.ext, t.contentType, nil
				if t.checks != nil {
					late := t.checks(rules)
					if fe := late.check(&first); fe != nil {
						return nil, fe
					}
					checks = append(checks, late)
				}
			}
		} else {
			for _, c := range checks {
				if fe := c.check(&w); fe != nil {
					return nil, fe
				}
			}
		}
		carry = min(len(w.buf), windowCarry)
		copy(sc.win, w.buf[len(w.buf)-carry:])
	}
	for _, c := range checks {
		if fe := c.finish(f.Size); fe != nil {
			return nil, fe
		}
	}
	for _, c := range checks {
		if r, ok := c.(rereader); ok {
			at := newContentAt(f, wk)
			fe := r.reread(at, f.Size, wk)
			at.release()
			if fe != nil {
				return nil, fe
			}
		}
	}
	h.Sum(f.SHA256[:0])
	return f, nil
}
