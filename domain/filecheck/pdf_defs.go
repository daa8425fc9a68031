package filecheck

import (
	"slices"
	"strconv"
)

// pdfDefs follows the references that an object stream's /Filter and
// /DecodeParms are written with, to every place a viewer could take the
// object from:
//
//   - Every definition "N G obj" counts, wherever it is written (in a
//     string, a comment, another stream's data): a cross-reference
//     table may point anywhere. Definitions of one number are taken
//     together: a viewer may use any of them.
//   - A definition says what the text from it to the next object at the
//     top level says (pdfNames: filter names, /Predictor), which holds
//     at least its own value. Its value is read for references, which
//     are followed in turn (MuPDF resolves a reference to a reference),
//     at most maxRefDepth deep.
//   - An object in an object stream cannot be told apart: MuPDF finds it
//     by the number in the stream's header, pdf.js by its index, which
//     only the cross-reference stream gives. So a number some object
//     stream's header names is not followed (the stream is refused), and
//     every resolution takes in what all object streams' contents name.
//
// Bounds: maxDefs definitions kept (only those a resolution could use),
// maxHeldRuns runs of object-stream numbers, maxValueRefs references a
// value. Past a bound nothing more is followed and every reference is
// taken as one that cannot be (the object stream is refused).
type pdfDefs struct {
	defs    map[uint32]pdfDef
	seg     pdfSegment
	held    []pdfRun // numbers named in object streams' headers
	wild    pdfNames // what object streams' contents and unnumbered objects name
	unknown bool     // a bound was passed, or a definition could not be read
	pending []pdfPending
	lens    pdfLengths // what definitions say about held /Length references
}

const (
	maxDefs     = 1 << 12 // in an object-stream file few top-level objects are kept: streams are dictionaries
	maxHeldRuns = 4096
	maxRefDepth = 8
	maxSegDefs  = 16 // definitions in one top-level object's text
)

// pdfDef is what the definitions of one object number say.
type pdfDef struct {
	names   pdfNames
	nrefs   uint8
	refs    [maxValueRefs]uint32
	unread  bool
	state   uint8 // resolution: 0 not yet, 1 under way, 2 done
	result  pdfNames
	resolve bool // result is known
}

// pdfSegment is the text from one object at the top level to the next.
type pdfSegment struct {
	names      pdfNames
	defs       []pdfSegDef
	unnumbered bool // an obj keyword whose number could not be read
}

type pdfSegDef struct {
	num uint32
	val pdfValue
}

type pdfRun struct{ lo, hi uint32 }

// pdfPending is an object stream whose /Filter or /DecodeParms holds
// references: decided once the whole file is read.
type pdfPending struct {
	names pdfNames // what its dictionary names itself
	vals  pdfVals
	first bool // /First: uncompressed, pdf.js reads it on to the end of the file
}

// name counts a name of the current segment.
func (d *pdfDefs) name(name []byte) { d.seg.names.add(name) }

// content counts a name inside an object stream's data.
func (d *pdfDefs) content(name []byte) { d.wild.add(name) }

// define handles the keyword obj at buf[e]; top says it starts an object
// at the top level, which ends the segment before it.
func (d *pdfDefs) define(w *window, e int, top bool) {
	if top {
		d.endSegment()
	}
	num, ok, keyword := pdfObjNumber(w, e)
	d.lens.define(num, ok, keyword, func() pdfValue { return pdfValueAt(w.buf, e+3, w.final) })
	switch {
	case ok:
		if len(d.seg.defs) == maxSegDefs {
			d.unknown = true
			return
		}
		d.seg.defs = append(d.seg.defs, pdfSegDef{num, pdfValueAt(w.buf, e+3, w.final)})
	case keyword:
		// Its names count for every resolution; what its value leads
		// to cannot be followed.
		d.seg.unnumbered = true
		if k := pdfValueAt(w.buf, e+3, w.final).kind; k == valRef || k == valArray || k == valUnreadable {
			d.unknown = true
		}
	}
}

// endSegment keeps what the segment's definitions say.
func (d *pdfDefs) endSegment() {
	s := &d.seg
	if s.unnumbered {
		d.wild = d.wild.or(s.names)
	}
	for _, sd := range s.defs {
		// Kept only when a resolution could use it: a /Predictor, a
		// filter name as the value, references, or a value not read. A
		// dictionary used as a /Filter is no filter, which reading the
		// data as it is covers.
		k := sd.val.kind
		if !s.names.predictor && k != valRef && k != valArray && k != valUnreadable && (k != valName || s.names.filters == 0) {
			continue
		}
		def, ok := d.defs[sd.num]
		if !ok && len(d.defs) == maxDefs {
			d.unknown = true
			continue
		}
		if d.defs == nil {
			d.defs = map[uint32]pdfDef{}
		}
		def.names = def.names.or(s.names)
		def.unread = def.unread || k == valUnreadable
		if int(def.nrefs)+int(sd.val.nrefs) > len(def.refs) {
			def.unread = true
		} else {
			def.nrefs += uint8(copy(def.refs[def.nrefs:], sd.val.refs[:sd.val.nrefs]))
		}
		d.defs[sd.num] = def
	}
	*s = pdfSegment{defs: s.defs[:0]}
}

// inObjStm notes that an object stream's header names object num.
func (d *pdfDefs) inObjStm(num uint32) {
	if n := len(d.held); n > 0 && d.held[n-1].hi+1 == num {
		d.held[n-1].hi = num
		return
	}
	if len(d.held) == maxHeldRuns {
		d.unknown = true
		return
	}
	d.held = append(d.held, pdfRun{num, num})
}

// resolve returns what object num may be, following references, and
// whether that is known.
func (d *pdfDefs) resolve(num uint32, depth int) (pdfNames, bool) {
	if d.unknown || depth > maxRefDepth || d.isHeld(num) {
		return pdfNames{}, false
	}
	def, ok := d.defs[num]
	if !ok {
		return d.wild, true // no definition: null, or an object in an object stream
	}
	switch def.state {
	case 1:
		return pdfNames{}, false // a cycle
	case 2:
		return def.result, def.resolve
	}
	def.state = 1
	d.defs[num] = def
	res, known := def.names.or(d.wild), !def.unread
	for _, r := range def.refs[:def.nrefs] {
		n, k := d.resolve(r, depth+1)
		res, known = res.or(n), known && k
	}
	def.state, def.result, def.resolve = 2, res, known
	d.defs[num] = def
	return res, known
}

func (d *pdfDefs) isHeld(num uint32) bool {
	i, _ := slices.BinarySearchFunc(d.held, num, func(r pdfRun, n uint32) int {
		if r.hi < n {
			return -1
		}
		return 0
	})
	return i < len(d.held) && d.held[i].lo <= num
}

// finish decides the pending object streams.
func (d *pdfDefs) finish() *Finding {
	d.endSegment()
	slices.SortFunc(d.held, func(a, b pdfRun) int { return int(int64(a.lo) - int64(b.lo)) })
	// Runs may overlap; merge them so that a binary search finds any.
	merged := d.held[:0]
	for _, r := range d.held {
		if n := len(merged); n > 0 && r.lo <= merged[n-1].hi+1 {
			merged[n-1].hi = max(merged[n-1].hi, r.hi)
			continue
		}
		merged = append(merged, r)
	}
	d.held = merged
	for _, p := range d.pending {
		if fe := d.decide(p); fe != nil {
			return fe
		}
	}
	return nil
}

// decide refuses an object stream whose references lead to a predictor,
// to a filter chain other than one FlateDecode or none, or to what
// cannot be known.
func (d *pdfDefs) decide(p pdfPending) *Finding {
	filters := p.names
	for _, r := range p.vals.refs[:p.vals.nrefs] {
		n, known := d.resolve(r.num, 1)
		if !known {
			return pdfUninspectable("una referencia indirecta de su /Filter o /DecodeParms (objeto " +
				strconv.FormatUint(uint64(r.num), 10) + ") no se puede seguir")
		}
		switch r.key {
		case keyFilter:
			filters = filters.or(pdfNames{filters: n.filters, flate: n.flate})
		case keyParms:
			if n.predictor {
				return pdfUninspectable("un flujo de objetos usa un predictor")
			}
		}
	}
	switch {
	case filters.filters == 0 && p.first:
		// Its names were counted to its endstream only (endRawData).
		return pdfUninspectable("un flujo de objetos con /First y un /Filter indirecto que no nombra ningún filtro")
	case filters.filters == 0 || filters.filters == 1 && filters.flate == 1:
		return nil // inspected as it is and inflated: both were done
	}
	return pdfUninspectable("un flujo de objetos usa un filtro distinto de un solo FlateDecode")
}
