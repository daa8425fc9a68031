package filecheck

// What pdfCheck does where a stream's data starts and ends: an object
// stream's data is captured and inflated, or read as it is, and its
// /Length followed (pdf.go says why).

// onStream handles the keyword stream, standing alone at w.buf[e].
// Readers place a stream's data after the end of line that follows the
// keyword (ISO 32000-1 §7.3.8.1), each its own way when something else
// comes first: pdf.js skips to the end of the line, whatever is on it;
// MuPDF starts one byte after the keyword; qpdf and pdfcpu want white
// space and an end of line. So the data is placed only where white space
// holding an end of line follows the keyword: every reader's data then
// starts in that white space or right after it, where the check starts
// it. Elsewhere (issue 32 hid a script in an object stream behind
// "stream%" and "stream/"):
//   - an object stream (objStmSure) is refused: which bytes a reader
//     inflates cannot be known;
//   - a keyword followed by a delimiter starts no data here: what
//     follows is read as text, every name counting, markers searched;
//   - a keyword followed by white space without an end of line starts
//     data as before, but a FlateDecode stream's data is then searched
//     as text (its blocks cannot be walked from a known start).
func (p *pdfCheck) onStream(w *window, e int, text *int64) *Finding {
	k := e + len("stream")
	if k >= len(w.buf) || !pdfWhite(w.buf[k]) {
		if p.allowScripts {
			return nil
		}
		d := p.dict
		if p.inData {
			d = p.region.or(d)
		}
		if d.objStmSure() {
			return pdfUnplaced()
		}
		return nil
	}
	if !p.inData && !p.allowScripts && p.inText(w, e) {
		if p.stray {
			return pdfUninspectable("la palabra «stream» aparece fuera de un diccionario de flujo")
		}
		return nil
	}
	start, placed := pdfDataStart(w, k)
	return p.startData(w, w.base+int64(k), start, placed, text)
}

func pdfUnplaced() *Finding {
	return pdfUninspectable("los datos de un flujo de objetos no empiezan en la línea siguiente a «stream»")
}

// pdfDataStart returns the offset of the first byte that is not white
// space from w.buf[k] on, and whether an end of line came before it.
// More white space than the window holds places nothing.
func pdfDataStart(w *window, k int) (int64, bool) {
	eol := false
	for j := k; j < len(w.buf); j++ {
		c := w.buf[j]
		if !pdfWhite(c) {
			return w.base + int64(j), eol
		}
		eol = eol || c == '\r' || c == '\n'
	}
	return w.end(), false
}

// startData handles the keyword stream; the data starts at off, its
// first byte that is not white space at start, placed as onStream says.
func (p *pdfCheck) startData(w *window, off, start int64, placed bool, text *int64) *Finding {
	if p.allowScripts { // only where stream data is matters (polyglot.go)
		if !p.inData {
			if fe := searchText(w, *text, off); fe != nil {
				return fe
			}
		}
		p.inData = true
		return nil
	}
	if fe := p.objStms.end(w, off); fe != nil { // a stream inside data: the one before has ended
		return fe
	}
	nested, wasText := p.inData, p.isText()
	if nested {
		p.region = p.region.or(p.dict)
	} else {
		p.region = p.dict
	}
	// A stream keyword inside data starts no new reading: what the data
	// before it was read as (as it is) goes on, and its data opens with
	// a zlib header only if every start so far does (the third review: a
	// second "stream" followed by zlib data undid the reading as it is).
	z := zlibAt(w, start)
	if nested {
		z = z && p.rawZlib
	}
	p.dict, p.inData, p.rawObjStm, p.rawZlib = pdfDict{}, true, nested && p.rawObjStm, z
	if fe := p.textOrWalk(w, off, start, placed, nested, wasText, text); fe != nil {
		return fe
	}
	d := p.region
	if !d.objStm {
		return nil
	}
	switch {
	case !placed && d.objStmSure():
		return pdfUnplaced()
	case d.names.predictor:
		return pdfUninspectable("un flujo de objetos usa un predictor")
	case d.vals.unread&(keyFilter|keyParms) != 0:
		return pdfUninspectable("el /Filter o /DecodeParms de un flujo de objetos no se puede leer")
	case d.vals.has(keyFilter):
		// Decided once the references are followed, at the end; until
		// then the data is read both ways, as it is and inflated.
		p.defs.pending = append(p.defs.pending, pdfPending{d.names, d.vals, d.sure&dictFirst != 0})
		p.startRaw(w, off)
		return p.objStms.start(off, d.objStmSure())
	case d.names.filters == 1 && d.names.flate == 1:
		if d.vals.has(keyParms) {
			p.defs.pending = append(p.defs.pending, pdfPending{d.names, d.vals, false})
		}
		// Which filters a viewer applies is what /Filter (or /F) holds,
		// which the names counted anywhere in the dictionary may not be
		// (/Filter %/FlateDecode<LF>[ ], /F null: the twentieth session's
		// second review). Data that opens with no zlib header may be read
		// as it is: a stored deflate block spells an object stream's
		// header; it is read as it is too (pdf_length.go, zlibAt).
		if !p.rawZlib {
			p.startRaw(w, off)
		}
		return p.objStms.start(off, d.objStmSure())
	case !d.vals.has(keyParms) && d.names.textFlate() && p.rawZlib:
		// Text that is also a zlib header ("8O" is ASCII85 too) may be
		// inflated as it is by a viewer whose /Filter holds FlateDecode
		// alone; real ASCII85 of zlib data opens with G.
		return pdfUninspectable("un flujo de objetos en texto ASCII empieza como datos zlib")
	case !d.vals.has(keyParms) && d.names.textFlate():
		return p.objStms.startText(off, d.objStmSure(), d.names.hex == 1)
	case d.names.filters == 0 && !d.filterKey:
		p.startRaw(w, off)
		return p.objStms.count1()
	}
	return pdfUninspectable("un flujo de objetos usa un filtro distinto de un solo FlateDecode")
}

// startRaw reads the data from off, the end of the keyword stream, as an
// uncompressed object stream: every name counts, and its header's object
// numbers are noted. Where a viewer's data starts, for its /Length, is
// noted too (pdfAfterEOL).
func (p *pdfCheck) startRaw(w *window, off int64) {
	p.rawObjStm = true
	if p.rawFrom < 0 {
		p.rawFrom, p.hdr, p.hdrNext = off, objStmHeader{on: true}, off
		p.rawData = pdfAfterEOL(w, int(off-w.base))
	}
}

// pdfAfterEOL returns the offset after the end of line (CR LF, CR or LF)
// that follows the keyword stream ending at w.buf[k] across white space:
// where MuPDF and pdf.js start the data a /Length counts (the review of
// the twentieth session: 220 spaces before it were counted as data), or
// -1 when something else comes first or the window ends.
func pdfAfterEOL(w *window, k int) int64 {
	for j := k; j < len(w.buf); j++ {
		switch c := w.buf[j]; {
		case c == '\r' && j+1 < len(w.buf) && w.buf[j+1] == '\n':
			return w.base + int64(j+2)
		case c == '\r' && j+1 == len(w.buf):
			return -1 // a LF may follow
		case c == '\r' || c == '\n':
			return w.base + int64(j+1)
		case !pdfWhite(c):
			return -1
		}
	}
	return -1
}

// feedHeader feeds the raw object stream's data up to offset to.
func (p *pdfCheck) feedHeader(w *window, to int64, last bool) {
	if p.hdr.on && to > p.hdrNext {
		p.hdr.feed(w.buf[w.index(p.hdrNext):w.index(to)], &p.defs, last)
		p.hdrNext = to
	}
}

// endData handles the keyword endstream, at off. A viewer reads an
// uncompressed object stream's data by its /Length: when that is longer
// than the data read here, or cannot be known, the stream's names go on
// counting as its own to the end of the file (pdf_length.go).
func (p *pdfCheck) endData(w *window, off int64, text *int64) *Finding {
	if fe := p.endText(w, off, text); fe != nil {
		return fe
	}
	if p.allowScripts {
		p.inData = false
		return nil
	}
	if p.rawObjStm {
		p.feedHeader(w, off, true)
		p.endRawData(off)
	}
	said := p.region
	p.dict, p.region, p.inData, p.rawObjStm, p.rawFrom, p.rawData, p.rawZlib = pdfDict{}, pdfDict{}, false, false, -1, -1, false
	if !p.pseudo {
		p.syntax.reset(off + int64(len("endstream")))
	} else {
		p.dict = said // data begun in a string ends no dictionary (the fifth review)
	}
	// p.def holds to the end of the file: the object defined in data may
	// run past this endstream ("/X (endstream stream<LF>) /EF").
	p.pseudo = false
	return p.objStms.end(w, off)
}
