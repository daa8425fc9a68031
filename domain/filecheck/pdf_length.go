package filecheck

// An uncompressed object stream whose /Length is a reference ("/Length 7
// 0 R", as pdfcpu writes an ICC profile's stream): a viewer reads its data
// by the length object 7 holds, which may reach past the "endstream" the
// data was read to here. Until the twentieth session every name after
// such a stream counted as an object stream's, to the end of the file, so
// the letters /JS or /EF spelled by chance in a later stream's compressed
// data refused the file. The length is now followed: the stream's data
// length read here is held with the reference, the first two-letter
// marker met in later stream data is held too, and once the whole file is
// read the marker refuses the file only when the length cannot be known
// or is longer than the data read. What can be known:
//
//   - Every definition of the number after the stream ("7 0 obj 1234"),
//     wherever written, is a direct integer: a viewer may use any of
//     them, so the largest counts. A definition of another kind, or none,
//     cannot be known.
//   - A definition before the stream is not kept, only the highest
//     number defined so far: when the reference's number is not above it
//     (it may have been defined already), the stream is read as before,
//     on to the end of the file. Writers that put a length after its
//     stream number it next (qpdf's QDF form, pdfcpu).
//   - An object stream's header naming the number, an obj keyword whose
//     number could not be read, or the definitions' bounds (pdfDefs) make
//     it unknown.

// maxHeldLengths bounds the streams whose length is held; past it a
// stream is read on to the end of the file.
const maxHeldLengths = 8

// pdfLengths is what the definitions say about the held lengths.
type pdfLengths struct {
	top    uint32 // the highest number defined so far
	any    bool   // a number was defined
	held   []pdfHeldLength
	unread bool // an obj keyword whose number could not be read
}

// pdfHeldLength is one held stream's length reference and what its
// number's definitions say.
type pdfHeldLength struct {
	num  uint32
	read int64 // the data read here, from its start to "endstream"
	max  int64 // the largest integer a definition holds
	defs int   // definitions read
	bad  bool  // a definition that is not a direct integer
}

// define notes a definition of num whose value is val (ok: the number
// was read; keyword: an obj keyword stands there).
func (l *pdfLengths) define(num uint32, ok, keyword bool, val func() pdfValue) {
	if !ok {
		l.unread = l.unread || keyword
		return
	}
	l.top, l.any = max(l.top, num), true
	for i := range l.held {
		h := &l.held[i]
		if h.num != num {
			continue
		}
		v := val()
		h.defs++
		h.bad = h.bad || v.kind != valInt
		h.max = max(h.max, v.n)
	}
}

// hold keeps a stream's length reference num with the data read; false
// when the length cannot be held (the number may have been defined before,
// or too many are held).
func (l *pdfLengths) hold(num uint32, read int64) bool {
	if len(l.held) == maxHeldLengths || l.any && num <= l.top {
		return false
	}
	l.held = append(l.held, pdfHeldLength{num: num, read: read})
	return true
}

// within reports whether every held length is known and no longer than
// its stream's data read here (d has finished: its runs are merged).
func (l *pdfLengths) within(d *pdfDefs) bool {
	if l.unread || d.unknown {
		return false
	}
	for _, h := range l.held {
		if h.defs == 0 || h.bad || h.max > h.read || d.isHeld(h.num) {
			return false
		}
	}
	return true
}

// endRawData decides, at the end of an uncompressed object stream's data
// read to off, whether its names go on counting to the end of the file:
// a direct /Length longer than the data read from where a viewer starts
// it, or one that cannot be read or held, makes them; a reference that
// can be held is decided at the end (heldMarker). So does /First, always:
// pdf.js reads an uncompressed object stream's last object on to the end
// of the file, whatever the /Length (it needs /First to read one; MuPDF,
// which reads one by /N alone, stops at the /Length). A stream whose
// /Filter is a reference is read as it is only until the reference is
// followed: one with /First whose reference names no filter is refused
// then (pdfDefs.decide), and one whose data opens with no zlib header
// counts to the end of the file at once (the reference may be resolved
// by what its definition's text names, which a viewer need not read).
func (p *pdfCheck) endRawData(off int64) {
	v, read := p.region.vals, off-p.rawData
	switch {
	case p.rawData < 0 || p.region.sure&dictFirst != 0 && (!v.has(keyFilter) || !p.rawZlib):
		p.rawToEOF = true
	case v.unread&keyLength != 0 || v.lnRefs > 1 || v.directLn && v.length > read:
		p.rawToEOF = true
	case v.lnRefs == 1 && !p.defs.lens.hold(v.lnRef, read):
		p.rawToEOF = true
	}
}

// heldMarker is the answer of a file in which a two-letter marker was
// met in stream data after a held length: the marker when a held length
// is not known to end within its data, else nil.
func (p *pdfCheck) heldMarker() *Finding {
	if p.heldShort == nil || p.defs.lens.within(&p.defs) {
		return nil
	}
	return p.heldShort
}

// zlibAt reports whether the stream data at off (its first byte that is
// not white space) opens with a zlib header without a preset dictionary
// (RFC 1950: CM 8, CINFO at most 7, the check bits, FDICT clear), as
// every FlateDecode writer's data does. Such data cannot be read as an
// object stream's header: its one digit that may open it is "8", and the
// byte after that is no white space or digit, so pdf.js and MuPDF read no
// second number there.
func zlibAt(w *window, off int64) bool {
	i := w.index(off)
	if i < 0 || i+1 >= len(w.buf) {
		return false
	}
	return zlibHeader(w.buf[i], w.buf[i+1])
}

// zlibHeader reports whether a and b are a zlib header (RFC 1950) with no
// preset dictionary.
func zlibHeader(a, b byte) bool {
	return a&0x0F == 8 && a>>4 <= 7 && (uint16(a)<<8|uint16(b))%31 == 0 && b&0x20 == 0
}
