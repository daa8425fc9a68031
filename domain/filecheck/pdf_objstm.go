package filecheck

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"io"
	"strconv"
)

// Bounds on inflating a PDF's object streams, so that a deflate bomb
// costs at most maxInflated bytes of inflating and scanning and
// maxObjStmBytes of memory. A PDF past a bound cannot be inspected and is
// refused as active content: a real object stream holds dictionaries, not
// megabytes, and compresses about tenfold, so no ordinary PDF of 20 MiB
// comes near them.
const (
	maxObjStms     = 10_000   // object streams in one PDF
	maxObjStmBytes = 4 << 20  // compressed bytes of one object stream, held while it arrives
	maxInflated    = 16 << 20 // inflated bytes of all of one PDF's object streams
)

// objStms inflates a PDF's object streams (as pdfCheck finds them) and
// scans the objects inside them for active names. A stream's compressed data is
// held until endstream (an object stream is small; see maxObjStmBytes),
// then inflated a block at a time and scanned as it comes out.
//
// The data ends at the first endstream, or stream keyword, after it; its
// deflate data must end before that. Deflate can carry any bytes as they
// are (a stored block), so a stream could spell "endstream" early, or
// hold another object stream, to end our reading of it where a viewer,
// going by /Length, reads on; such a stream, and one cut short, is
// refused as one that cannot be inspected, and so is data that does not
// inflate (notInflated): another inflater may read on where ours stops.
type objStms struct {
	count     int
	capturing bool
	sure      bool   // the stream being captured must inflate
	text      uint8  // textHex or textA85: its data is ASCII to decode before inflating
	next      int64  // the first offset of the data not yet held
	data      []byte // the compressed data held
	inflated  int64
	zr, fr    io.ReadCloser // reused across streams
	out       []byte
	name      [16]byte
	defs      *pdfDefs // told the names and header numbers found inside
	uri       pdfURIScan
}

func pdfUninspectable(why string) *Finding {
	fe := refuse(ActiveContent, "el PDF no se puede inspeccionar en busca de contenido activo: "+why)
	fe.unreadable = true
	return fe
}

// count1 counts an object stream.
func (o *objStms) count1() *Finding {
	if o.count++; o.count > maxObjStms {
		return pdfUninspectable("tiene más de " + strconv.Itoa(maxObjStms) + " flujos de objetos")
	}
	return nil
}

// start handles the keyword stream of a Flate object stream whose data
// starts at off; sure says its dictionary is one that viewers read an
// object stream from (objStmSure), whose data must then inflate.
func (o *objStms) start(off int64, sure bool) *Finding {
	if fe := o.count1(); fe != nil {
		return fe
	}
	o.capturing, o.sure, o.next, o.data, o.text = true, sure, off, o.data[:0], textNone
	return nil
}

// startText is start for data written in ASCII (hex, or base 85) before
// it was deflated: it is decoded back before it inflates.
func (o *objStms) startText(off int64, sure, hex bool) *Finding {
	if fe := o.start(off, sure); fe != nil {
		return fe
	}
	o.text = textA85
	if hex {
		o.text = textHex
	}
	return nil
}

// take holds the data of the stream being captured up to offset upTo.
func (o *objStms) take(w *window, upTo int64) *Finding {
	if !o.capturing || upTo <= o.next {
		return nil
	}
	if int64(len(o.data))+upTo-o.next > maxObjStmBytes {
		return pdfUninspectable("un flujo de objetos supera " + strconv.Itoa(maxObjStmBytes>>20) + " MiB comprimido")
	}
	if need := len(o.data) + int(upTo-o.next); need > cap(o.data) {
		// Doubling, not append's 1.25 for large slices: a stream near the
		// bound then costs twice the bound in allocations, not five times.
		grown := make([]byte, len(o.data), min(max(2*cap(o.data), need, 64<<10), maxObjStmBytes))
		copy(grown, o.data)
		o.data = grown
	}
	o.data = append(o.data, w.buf[w.index(o.next):w.index(upTo)]...)
	o.next = upTo
	return nil
}

// end ends the stream being captured at offset off (w is nil at the end
// of the file, when all has been taken) and scans what it inflates to.
func (o *objStms) end(w *window, off int64) *Finding {
	if !o.capturing {
		return nil
	}
	if w != nil {
		if fe := o.take(w, off); fe != nil {
			return fe
		}
	}
	o.capturing = false
	data, ok := o.untext(o.data)
	if !ok {
		return o.notInflated()
	}
	if o.text != textNone {
		if fe := o.asIs(bytes.TrimLeft(data, "\x00\t\n\f\r ")); fe != nil {
			return fe
		}
	}
	r, err := o.reader(bytes.TrimLeft(data, "\x00\t\n\f\r "))
	if err == io.ErrUnexpectedEOF {
		return pdfUninspectable("un flujo de objetos comprimido termina antes de tiempo")
	}
	if err != nil {
		return o.notInflated()
	}
	if o.out == nil {
		o.out = make([]byte, windowCarry+32<<10)
	}
	budget := io.LimitReader(r, maxInflated-o.inflated+1)
	hdr := objStmHeader{on: true}
	o.uri = pdfURIScan{}
	var win window
	carry, produced := 0, int64(0)
	for !win.final {
		n, err := readFull(budget, o.out[carry:])
		o.inflated += int64(n)
		if o.inflated > maxInflated {
			return pdfUninspectable("sus flujos de objetos superan " + strconv.Itoa(maxInflated>>20) + " MiB al descomprimirse")
		}
		if err == io.ErrUnexpectedEOF {
			return pdfUninspectable("un flujo de objetos comprimido termina antes de tiempo")
		}
		if err != nil && err != io.EOF && err != zlib.ErrChecksum {
			if fe := o.notInflated(); fe != nil {
				return fe
			}
		}
		produced += int64(n)
		win = window{buf: o.out[:carry+n], base: produced - int64(carry+n), fresh: carry, from: win.limit, final: err != nil}
		win.limit = win.end()
		if !win.final {
			win.limit = max(win.from, win.end()-lookAhead)
		}
		hdr.feed(win.buf[win.index(win.from):win.index(win.limit)], o.defs, win.final)
		if fe := o.names(&win); fe != nil {
			return fe
		}
		if fe := o.uri.scan(&win); fe != nil {
			return fe
		}
		carry = min(len(win.buf), windowCarry)
		copy(o.out, win.buf[len(win.buf)-carry:])
	}
	return nil
}

// notInflated is an object stream whose data does not inflate: refused
// when its dictionary is an object stream's (a viewer's inflater may read
// what ours does not), let through when only /First made it one here
// (an outline item's /Title may spell "stream", and no viewer takes
// objects from that).
func (o *objStms) notInflated() *Finding {
	if !o.sure {
		return nil
	}
	return pdfUninspectable("un flujo de objetos no se puede descomprimir")
}

// readFull reads into p until it is full or r fails, and returns r's
// error as it is (io.ReadFull turns an early io.EOF into
// io.ErrUnexpectedEOF, which here means a deflate stream cut short).
func readFull(r io.Reader, p []byte) (int, error) {
	n := 0
	for n < len(p) {
		m, err := r.Read(p[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// names refuses the window if an active name starts in it; inside an
// object stream every name counts.
func (o *objStms) names(w *window) *Finding {
	buf, lim := w.buf, w.index(w.limit)
	for i := w.index(w.from); i < lim; {
		j := bytes.IndexByte(buf[i:lim], '/')
		if j < 0 {
			break
		}
		if name, ok := pdfNameAt(buf, i+j, &o.name); ok {
			if pdfActiveName(name) {
				return pdfActive(string(name))
			}
			o.defs.content(name)
		}
		i += j + 1
	}
	return nil
}

// reader inflates data: zlib, as FlateDecode is, or raw deflate when the
// zlib header is missing, as some writers leave it and viewers accept.
func (o *objStms) reader(data []byte) (io.Reader, error) {
	src := bytes.NewReader(data)
	if len(data) >= 2 && data[0]&0x0F == 8 && data[0]>>4 <= 7 && (uint16(data[0])<<8|uint16(data[1]))%31 == 0 {
		if o.zr == nil {
			zr, err := zlib.NewReader(src)
			if err != nil {
				return nil, err
			}
			o.zr = zr
			return zr, nil
		}
		return o.zr, o.zr.(zlib.Resetter).Reset(src, nil)
	}
	if o.fr == nil {
		o.fr = flate.NewReader(src)
		return o.fr, nil
	}
	return o.fr, o.fr.(flate.Resetter).Reset(src, nil)
}

// objStmHeader reads the pairs of integers that open an object stream's
// data (object number, offset) and tells defs each object number. It
// stops at the first byte that is neither a digit nor whitespace; when
// that byte is one a lenient lexer reads as part of a number (a sign, a
// point, an exponent) or a comment, which number a viewer reads there is
// not known, and defs is told so.
type objStmHeader struct {
	on    bool
	inNum bool
	n     uint64
	count int
}

// feed reads b, the next bytes of the data; last says none follow.
func (h *objStmHeader) feed(b []byte, defs *pdfDefs, last bool) {
	for _, c := range b {
		if !h.on {
			return
		}
		switch {
		case c >= '0' && c <= '9':
			h.n, h.inNum = min(h.n*10+uint64(c-'0'), 1<<33), true
		case pdfWhite(c):
			h.emit(defs)
		default:
			h.emit(defs)
			h.on = false
			switch c {
			case '+', '-', '.', 'e', 'E', '%':
				defs.unknown = true
			}
		}
	}
	if last && h.on {
		h.emit(defs)
		h.on = false
	}
}

func (h *objStmHeader) emit(defs *pdfDefs) {
	if !h.inNum {
		return
	}
	if h.count%2 == 0 && h.n <= 1<<32-1 {
		defs.inObjStm(uint32(h.n))
	}
	h.count++
	h.n, h.inNum = 0, false
}
