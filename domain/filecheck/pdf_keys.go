package filecheck

// What a stream's dictionary says about how its data is decoded: the
// filter names and /Predictor it names (pdfNames), and what its /Filter,
// /DecodeParms and /Length entries hold beyond names (pdfVals): direct
// lengths, references to follow, values that cannot be read.

// pdfNames counts the filter names and notes /Predictor in some text.
type pdfNames struct {
	filters   uint16 // filter names, FlateDecode included
	flate     uint16 // FlateDecode names
	predictor bool   // /Predictor: inflated bytes are differences
	hex, a85  uint16 // ASCIIHexDecode and ASCII85Decode names
	textFirst bool   // one of those came before any FlateDecode
}

// textFlate reports whether the filters are an ASCII one (ASCIIHexDecode,
// ASCII85Decode) and then FlateDecode, as MuPDF's "clean -a" and Acrobat
// Distiller write binary streams (hex when n.hex is 1, else base 85).
func (n pdfNames) textFlate() bool {
	return n.filters == 2 && n.flate == 1 && n.hex+n.a85 == 1 && n.textFirst
}

// add counts name if it is a filter name or /Predictor.
func (n *pdfNames) add(name []byte) {
	switch string(name) {
	case "FlateDecode", "Fl":
		n.flate = min(n.flate+1, 1<<15)
		n.filters = min(n.filters+1, 1<<15)
	case "ASCIIHexDecode", "AHx":
		n.hex, n.textFirst = min(n.hex+1, 1<<15), n.textFirst || n.flate == 0
		n.filters = min(n.filters+1, 1<<15)
	case "ASCII85Decode", "A85":
		n.a85, n.textFirst = min(n.a85+1, 1<<15), n.textFirst || n.flate == 0
		n.filters = min(n.filters+1, 1<<15)
	case "LZWDecode", "LZW", "RunLengthDecode", "RL",
		"CCITTFaxDecode", "CCF", "JBIG2Decode", "DCTDecode", "DCT", "JPXDecode", "JPX", "Crypt",
		"BrotliDecode", "Br": // pdf.js 6 and MuPDF 1.26 decode Brotli (the third review)
		n.filters = min(n.filters+1, 1<<15)
	case "Predictor":
		n.predictor = true
	}
}

func (n pdfNames) or(m pdfNames) pdfNames {
	return pdfNames{min(n.filters+m.filters, 1<<15), min(n.flate+m.flate, 1<<15), n.predictor || m.predictor,
		min(n.hex+m.hex, 1<<15), min(n.a85+m.a85, 1<<15), n.textFirst || m.textFirst && n.flate == 0}
}

// The entries of a stream dictionary whose values pdfVals keeps, as bits.
const (
	keyFilter = 1 << iota // /Filter, or /F as some viewers read it
	keyParms              // /DecodeParms or /DP
	keyLength             // /Length
)

// pdfStreamKey returns the key bit that name is, or 0.
func pdfStreamKey(name []byte) uint8 {
	switch string(name) {
	case "Filter", "F":
		return keyFilter
	case "DecodeParms", "DP":
		return keyParms
	case "Length":
		return keyLength
	}
	return 0
}

// pdfKeyRef is a reference written as (or in) the value of key.
type pdfKeyRef struct {
	key uint8
	num uint32
}

// maxDictRefs is the most references a dictionary's /Filter and
// /DecodeParms may hold together; more is a value that cannot be read.
const maxDictRefs = 8

// pdfVals is what a dictionary's /Filter, /DecodeParms and /Length hold
// beyond the names that pdfNames counts.
type pdfVals struct {
	refs     [maxDictRefs]pdfKeyRef
	nrefs    uint8
	unread   uint8 // keys whose value could not be read or cannot be taken as it is
	length   int64 // the largest direct /Length
	directLn bool  // a direct /Length was read
	lnRef    uint32
	lnRefs   uint8 // /Length references (lnRef the first), at most 2
}

// has reports whether a reference was written for key.
func (v *pdfVals) has(key uint8) bool {
	for _, r := range v.refs[:v.nrefs] {
		if r.key == key {
			return true
		}
	}
	return false
}

// add records the value val written for key. What a viewer may take in
// another way than it reads here is unread: a /Filter that is not a
// name, an array or null; a /DecodeParms that is not a dictionary, an
// array or null; a /Length that is not a direct integer or a reference
// (pdf_length.go follows one).
func (v *pdfVals) add(key uint8, val pdfValue) {
	ok := false
	switch key {
	case keyFilter:
		ok = val.kind == valName || val.kind == valArray || val.kind == valNull || val.kind == valRef
	case keyParms:
		ok = val.kind == valDict || val.kind == valArray || val.kind == valNull || val.kind == valRef
	case keyLength:
		if val.kind == valRef && val.nrefs == 1 {
			v.addLengthRef(1, val.refs[0])
			return
		}
		ok = val.kind == valInt
		if ok {
			v.length, v.directLn = max(v.length, val.n), true
		}
	}
	if !ok {
		v.unread |= key
		return
	}
	if key == keyLength {
		return
	}
	for _, num := range val.refs[:val.nrefs] {
		if v.nrefs == maxDictRefs {
			v.unread |= key
			return
		}
		v.refs[v.nrefs] = pdfKeyRef{key, num}
		v.nrefs++
	}
}

// addLengthRef counts n /Length references, the first being num.
func (v *pdfVals) addLengthRef(n uint8, num uint32) {
	if n > 0 && v.lnRefs == 0 {
		v.lnRef = num
	}
	v.lnRefs = min(v.lnRefs+n, 2)
}

func (v pdfVals) or(w pdfVals) pdfVals {
	v.unread |= w.unread
	v.addLengthRef(w.lnRefs, w.lnRef)
	if w.directLn {
		v.length, v.directLn = max(v.length, w.length), true
	}
	for _, r := range w.refs[:w.nrefs] {
		if v.nrefs == maxDictRefs {
			v.unread |= r.key
			continue
		}
		v.refs[v.nrefs] = r
		v.nrefs++
	}
	return v
}
