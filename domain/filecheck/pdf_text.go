package filecheck

// Which bytes of a PDF's stream data are searched for active markers
// (contract §10, as issue 32 found it wanting: bytes that are not
// compressed are text to whoever reads them, a PHP interpreter included):
//
//   - the data of a stream whose dictionary has no /Filter, an XMP
//     metadata stream among them: it is as it is, all of it;
//   - a FlateDecode stream's stored blocks (deflateWalk), and whatever
//     follows where the walk ends or fails (a corrupt block, data cut
//     short, bytes after the checksum): none of it is compressed as far
//     as a reader can tell;
//   - a FlateDecode stream whose data start cannot be placed (onStream),
//     all of it.
//
// A stream keyword inside data leaves the outer data's reading as it was:
// it may be the data's own bytes. Other filters' data (DCT, JPX, CCITT,
// JBIG2, LZW, more than one filter) is not searched: it is compressed or
// encoded, and a search of it would refuse real scans (contract §10).

// isText reports whether the bytes at hand are searched as text: outside
// stream data, or in data that is text.
func (p *pdfCheck) isText() bool { return !p.inData || p.dataText }

// textOrWalk decides how the data that starts at off (its first byte
// not white space at start) is searched, and searches the text before it
// when that ends here (text is where it started).
func (p *pdfCheck) textOrWalk(w *window, off, start int64, placed, nested, wasText bool, text *int64) *Finding {
	d := p.region
	flate := d.names.filters == 1 && d.names.flate == 1 && d.vals.nrefs == 0 && d.vals.unread&keyFilter == 0
	switch {
	case nested && (p.dataText || p.walking):
	case !d.filter:
		p.dataText = true
	case flate && placed:
		p.walking = true
		p.walk.start(start)
	case flate:
		p.dataText = true
	}
	switch {
	case wasText && !p.isText():
		return searchText(w, *text, off)
	case !wasText && p.isText():
		*text = off
	}
	return nil
}

// walkTo walks the data up to offset to; where the walk ends or fails,
// the rest of the data is text from there.
func (p *pdfCheck) walkTo(w *window, to int64, text *int64) *Finding {
	if !p.walking || to <= p.walk.pos {
		return nil
	}
	fe := p.walk.feed(w.buf[w.index(p.walk.pos):w.index(to)], func(from, to int64) *Finding {
		return p.stored.addFrom(w, from, to)
	})
	if fe != nil {
		return fe
	}
	if p.walk.over() {
		p.walking, p.dataText, *text = false, true, p.walk.endedAt
	}
	return nil
}

// dataWindowEnd walks the data the window handles.
func (p *pdfCheck) dataWindowEnd(w *window, text *int64) *Finding { return p.walkTo(w, w.limit, text) }

// endText ends the data at off (endstream): a walk not over there is
// data cut short, text from where it stopped; after it, text resumes at
// off unless the data was text already.
func (p *pdfCheck) endText(w *window, off int64, text *int64) *Finding {
	if fe := p.walkTo(w, off, text); fe != nil {
		return fe
	}
	if p.walking {
		p.walk.end()
		p.walking, p.dataText, *text = false, true, p.walk.endedAt
	}
	if !p.dataText {
		*text = off
	}
	p.dataText = false
	return nil
}

// searchText searches the offsets [from, to) that w holds, up to its
// limit: from before w.from too, where a walk that stopped a few bytes
// back says the text starts.
func searchText(w *window, from, to int64) *Finding {
	from, to = max(from, w.base), min(to, w.limit)
	if from >= to {
		return nil
	}
	if m := markerIn(w.buf, w.index(from), w.index(to)); m != "" {
		return polyglot(m)
	}
	return nil
}

// addFrom searches the bytes [from, to) that w holds and keeps the rest
// for the windows after it, as add does, from before w.from too.
func (t *textSpans) addFrom(w *window, from, to int64) *Finding {
	if fe := searchText(w, from, to); fe != nil {
		return fe
	}
	if to > w.limit {
		t.pending = append(t.pending, [2]int64{max(from, w.limit), to})
	}
	return nil
}
