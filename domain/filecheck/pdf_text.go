package filecheck

import (
	"bufio"
	"bytes"
	"io"
	"strconv"
)

// Which bytes of a PDF's stream data are searched for active markers
// (contract §10, as issue 32 found it wanting: bytes that are not
// compressed are text to whoever reads them, a PHP interpreter included):
//
//   - the data of a stream whose dictionary has no /Filter, an XMP
//     metadata stream among them: it is as it is, all of it;
//   - a FlateDecode stream's stored blocks, and whatever follows where
//     its deflate blocks end or cannot be followed (a corrupt block, data
//     cut short, bytes after the checksum): none of it is compressed as
//     far as a reader can tell. Its data is searched as it passes, and a
//     marker found there is kept (flateHits): once the whole file has
//     passed, the stream is read again from its start and its blocks
//     walked (walkZlib), which is refused unless it
//     lies in Huffman-coded bits, where compressed bytes spell markers
//     by chance (contract §10). Real files have next to no such markers,
//     so the walk, as costly as inflating, is next to never paid;
//   - a FlateDecode stream whose data start cannot be placed (onStream),
//     all of it.
//
// A stream keyword inside data leaves the outer data's reading as it was:
// it may be the data's own bytes. Other filters' data (DCT, JPX, CCITT,
// JBIG2, LZW, more than one filter) is not searched: it is compressed or
// encoded, and a search of it would refuse real scans (contract §10).

// flateHits are the markers found in FlateDecode data, and the stream
// being read.
type flateHits struct {
	on    bool  // the data at hand is FlateDecode data
	start int64 // where its zlib stream starts
	hits  []flateHit
}

// flateHit is a marker at offset at in the data of the FlateDecode
// stream whose zlib stream starts at start and whose data ends at end.
type flateHit struct {
	start, at, end int64
	marker         string
}

// maxFlateHits bounds the markers kept: compressed data spells one about
// once in 16 MiB, so a file of 20 MiB with more was written to.
const maxFlateHits = 256

// isText reports whether the bytes at hand are searched: outside stream
// data, or in data that is text or FlateDecode.
func (p *pdfCheck) isText() bool { return !p.inData || p.dataText || p.flate.on }

// textOrWalk decides how the data that starts at off (its first byte
// not white space at start) is searched, and searches the text before it
// when that ends here (text is where it started).
func (p *pdfCheck) textOrWalk(w *window, off, start int64, placed, nested, wasText bool, text *int64) *Finding {
	d := p.region
	flate := d.names.filters == 1 && d.names.flate == 1 && d.vals.nrefs == 0 && d.vals.unread&keyFilter == 0
	wasFlate := p.flate.on
	switch {
	case nested && (p.dataText || p.flate.on):
	case !d.filter:
		p.dataText = true
	case flate && placed:
		p.flate.on, p.flate.start = true, start
	case flate:
		p.dataText = true
	}
	if wasText && (!p.isText() || wasFlate != p.flate.on) {
		// The text before is searched as what it was.
		now := p.flate.on
		p.flate.on = wasFlate
		fe := p.searchTo(w, *text, off)
		p.flate.on = now
		if fe != nil {
			return fe
		}
	}
	if p.isText() && (!wasText || wasFlate != p.flate.on) {
		*text = off
	}
	return nil
}

// searchTo searches the offsets [from, to) that w holds (from before
// w.from too): a marker in text is refused, one in FlateDecode data kept.
func (p *pdfCheck) searchTo(w *window, from, to int64) *Finding {
	if !p.flate.on {
		return searchText(w, from, to)
	}
	from, to = max(from, w.base), min(to, w.limit)
	for i, lim := w.index(from), w.index(to); i < lim; i++ {
		if i = markerIndex(w.buf, i, lim); i < 0 {
			break
		}
		if len(p.flate.hits) == maxFlateHits {
			return refuse(TypeRefused, "el PDF no se puede inspeccionar: sus datos comprimidos deletrean más de "+strconv.Itoa(maxFlateHits)+" marcas de contenido activo")
		}
		p.flate.hits = append(p.flate.hits, flateHit{p.flate.start, w.base + int64(i), -1, activeMarkerAt(w.buf[i:])})
	}
	return nil
}

// endText ends the data at off (endstream): FlateDecode data is searched
// up to there and its markers learn where it ends; after it, text
// resumes at off unless the data was text already.
func (p *pdfCheck) endText(w *window, off int64, text *int64) *Finding {
	if p.flate.on {
		if fe := p.searchTo(w, *text, off); fe != nil {
			return fe
		}
		p.endFlate(off)
	}
	if !p.dataText {
		*text = off
	}
	p.dataText = false
	return nil
}

// endFlate sets where the data of the markers just found ends.
func (p *pdfCheck) endFlate(end int64) {
	for i := len(p.flate.hits) - 1; i >= 0 && p.flate.hits[i].end < 0; i-- {
		p.flate.hits[i].end = end
	}
	p.flate.on = false
}

// reread walks the deflate blocks of each FlateDecode stream a marker
// was found in (walkZlib), reading the file again from the stream's
// start: a marker in a stored block, or where the blocks have ended or
// the walk has failed, is refused.
func (p *pdfCheck) reread(at io.ReaderAt, size int64, wk *work) *Finding {
	p.endFlate(size) // a stream the file ends in
	if len(p.flate.hits) == 0 {
		return nil
	}
	d := &deflateWalk{wk: wk}
	r := bufio.NewReaderSize(nil, 32<<10)
	for i := 0; i < len(p.flate.hits); {
		h := p.flate.hits[i]
		var stored [][2]int64
		r.Reset(io.NewSectionReader(at, h.start, h.end-h.start))
		err := d.walkZlib(r, func(block io.Reader) error {
			from := h.start + d.bits.consumed()
			n, err := io.Copy(io.Discard, block)
			stored = append(stored, [2]int64{from, from + n})
			return err
		})
		if fe := wk.cause(err); fe != nil {
			return fe
		}
		// Where the blocks ended, or the walk could not follow them:
		// what lies after is not compressed as far as a reader can tell.
		endedAt := h.start + d.bits.consumed()
		for ; i < len(p.flate.hits) && p.flate.hits[i].start == h.start; i++ {
			hit := p.flate.hits[i]
			if endedAt <= hit.at {
				return polyglot(hit.marker)
			}
			for _, s := range stored {
				if s[0] <= hit.at && hit.at < s[1] {
					return polyglot(hit.marker)
				}
			}
		}
	}
	return nil
}

// searchText searches the offsets [from, to) that w holds, up to its
// limit, from before w.from too.
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

// markerIndex returns the index of the first active marker that starts
// in buf[i:lim], or -1.
func markerIndex(buf []byte, i, lim int) int {
	for i < lim {
		j := bytes.IndexByte(buf[i:lim], '<')
		if j < 0 {
			return -1
		}
		if activeMarkerAt(buf[i+j:]) != "" {
			return i + j
		}
		i += j + 1
	}
	return -1
}
