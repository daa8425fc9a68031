package filecheck

// What pdfCheck does where a stream's data starts and ends: an object
// stream's data is captured and inflated, or read as it is, and its
// /Length followed (pdf.go says why).

// startData handles the keyword stream; the data starts at off.
func (p *pdfCheck) startData(w *window, off int64) *Finding {
	if p.allowScripts { // only where stream data is matters (polyglot.go)
		p.inData = true
		return nil
	}
	if fe := p.objStms.end(w, off); fe != nil { // a stream inside data: the one before has ended
		return fe
	}
	nested := p.inData
	if nested {
		p.region = p.region.or(p.dict)
	} else {
		p.region = p.dict
	}
	p.dict, p.inData, p.rawObjStm = pdfDict{}, true, false
	d := p.region
	if !d.objStm {
		return nil
	}
	switch {
	case d.names.predictor:
		return pdfUninspectable("un flujo de objetos usa un predictor")
	case d.vals.unread&(keyFilter|keyParms) != 0:
		return pdfUninspectable("el /Filter o /DecodeParms de un flujo de objetos no se puede leer")
	case d.vals.has(keyFilter):
		// Decided once the references are followed, at the end; until
		// then the data is read both ways, as it is and inflated.
		p.defs.pending = append(p.defs.pending, pdfPending{d.names, d.vals})
		p.startRaw(off)
		return p.objStms.start(off)
	case d.names.filters == 1 && d.names.flate == 1:
		if d.vals.has(keyParms) {
			p.defs.pending = append(p.defs.pending, pdfPending{d.names, d.vals})
		}
		return p.objStms.start(off)
	case d.names.filters == 0 && !d.filterKey:
		p.startRaw(off)
		return p.objStms.count1()
	}
	return pdfUninspectable("un flujo de objetos usa un filtro distinto de un solo FlateDecode")
}

// startRaw reads the data from off as an uncompressed object stream:
// every name counts, and its header's object numbers are noted.
func (p *pdfCheck) startRaw(off int64) {
	p.rawObjStm = true
	if p.rawFrom < 0 {
		p.rawFrom, p.hdr, p.hdrNext = off, objStmHeader{on: true}, off
	}
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
// than the data read here, or is not a direct integer (a reference may
// lead to any number, see pdfDefs), the stream's names go on counting as
// its own to the end of the file.
func (p *pdfCheck) endData(w *window, off int64) *Finding {
	if p.allowScripts {
		p.inData = false
		return nil
	}
	if p.rawObjStm {
		p.feedHeader(w, off, true)
		v := p.region.vals
		if v.unread&keyLength != 0 || v.directLn && v.length > off-p.rawFrom {
			p.rawToEOF = true
		}
	}
	p.dict, p.region, p.inData, p.rawObjStm, p.rawFrom = pdfDict{}, pdfDict{}, false, false, -1
	p.syntax.reset(off + int64(len("endstream")))
	return p.objStms.end(w, off)
}
