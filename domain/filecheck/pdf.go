package filecheck

import "bytes"

// pdfCheck refuses PDFs with active content and PDFs cut short (contract
// §7). It reads the PDF's syntax as it passes, without parsing objects:
//
//   - Every name is decoded (#xx escapes resolved) and compared whole, so
//     /J#61vaScript is /JavaScript and /JSON is not /JS. Names count
//     wherever they are, strings and comments included: a viewer that
//     follows the cross-reference table may parse an object that starts
//     anywhere, even inside another object's stream.
//   - Inside the data of a stream (from "stream" to "endstream") the
//     two-letter names /JS and /EF alone do not count: compressed bytes
//     spell them about once in 2^28 bytes, and a script action also names
//     its type, /S /JavaScript, an attachment its /EmbeddedFiles tree or
//     /FileAttachment annotation, which count everywhere.
//   - An object stream holds objects out of sight; its data is inflated,
//     within bounds, and every name in it counts (pdf_objstm.go).
//     What marks a stream as one is its dictionary's /Type /ObjStm or
//     /First (viewers read any stream the cross-reference table points
//     into, /Type or not). Its dictionary is what was said since the
//     object started ("N G obj" at the top level, see pdfSyntax) or since
//     the stream before it ended; a stream keyword inside another's data
//     keeps what the outer one said too. So the letters obj, stream or
//     endstream inside a string, a comment, a dictionary or another
//     stream's data do not make an object stream's dictionary forgotten.
//   - How an object stream's data is decoded may be written by reference
//     (/Filter 7 0 R, /DecodeParms [ 7 0 R ]): the values of /Filter,
//     /DecodeParms and /Length are read where they are written
//     (pdf_value.go, pdf_keys.go) and references followed,
//     within bounds, once the whole file is read (pdf_defs.go). A
//     stream whose /Filter is a reference is read both ways until then:
//     as it is, every name counting, and inflated. What cannot be read or
//     followed refuses the stream as one that cannot be inspected.
//   - A viewer reads an uncompressed object stream by its /Length, which
//     may reach past an "endstream" spelled inside its data; when the
//     length is longer than the data read here, or is not a direct
//     integer, every name counts from there to the end of the file.
//   - Where a stream's data starts is placed as every reader places it,
//     or an object stream is refused (pdf_data.go, onStream); an object
//     stream whose data does not inflate is refused (pdf_objstm.go).
//   - A string that a browser runs as a script URL counts as a script,
//     wherever it is and however it is written (pdf_uri.go).
//   - A PDF ends with %%EOF: it must be in the last pdfTail bytes.
//   - What comes before %PDF- is only white space, comments and PJL
//     (pdf_header.go). Bytes outside stream data, after the last %%EOF,
//     and in stream data that is not compressed are searched for active
//     markers (polyglot.go, pdf_text.go), scripts allowed or not (with
//     scripts allowed, stream data is not searched).
//
// Fail closed: what the check cannot read whole (a stream it cannot
// place, an object stream it cannot inflate, a reference it cannot
// follow, deflate blocks it cannot walk) is refused or searched as text,
// never passed unread.
type pdfCheck struct {
	allowScripts       bool
	started            bool   // the first window was seen
	tail               []byte // the last pdfTail bytes seen
	name               [16]byte
	syntax             pdfSyntax
	dict               pdfDict  // what was said since the object started or data ended
	region             pdfDict  // what the current stream's dictionary said
	inData             bool     // between stream and endstream
	objTop             bool     // the last obj keyword was read at the top level
	rawObjStm          bool     // the data is read as an uncompressed object stream
	rawFrom, rawData   int64    // where that data started; where a viewer starts it (pdfAfterEOL); or -1
	rawToEOF           bool     // a viewer may read one on to the end of the file
	rawZlib            bool     // that data opens with a zlib header (zlibAt)
	heldShort          *Finding // a two-letter marker in data after a held length (pdf_length.go)
	pseudo, def, stray bool     // data begun where none starts; an object (or /AA <<) defined in data; stream not after >> (pdf_pseudo.go)
	hdr                objStmHeader
	hdrNext            int64    // the first offset of its data not yet fed to hdr
	encrypted          bool     // an /Encrypt entry: strings and streams are ciphertext
	held               *Finding // an object stream that could not be read (pdf_encrypt.go)
	objStms            objStms
	defs               pdfDefs
	uri                pdfURIScan // strings that are script URIs (pdf_uri.go)
	dataText           bool       // the data is searched for markers as text (pdf_data.go)
	flate              flateHits  // where FlateDecode data spells markers (pdf_text.go)
}

// pdfDict is what a stream's dictionary says about its data.
type pdfDict struct {
	objStm    bool  // /ObjStm, /First or /N
	sure      uint8 // dictObjStm, dictFirst, dictN, dictOwnN: which of them were said
	filterKey bool  // /Filter (or /F, which some viewers read as it)
	filter    bool  // /Filter itself
	names     pdfNames
	vals      pdfVals
}

const (
	dictObjStm = 1 << iota
	dictFirst
	dictN
	dictOwnN // /N in the stream's own dictionary, not a nested one
)

// objStmSure reports whether the dictionary is one that viewers read an
// object stream from: /Type /ObjStm, the /N they read it by in its own
// dictionary (MuPDF takes a missing /First for 0), or /First and /N
// anywhere in it. /First alone is also an outline item's, whose /Title
// may spell "stream". An ICC profile's stream has /N too: it is then held
// to an object stream's rules (placed data; one FlateDecode, ASCIIHex or
// ASCII85 then FlateDecode, or no filter; data that inflates).
func (d pdfDict) objStmSure() bool {
	return d.sure&(dictObjStm|dictOwnN) != 0 || d.sure&(dictFirst|dictN) == dictFirst|dictN
}

func (d pdfDict) or(e pdfDict) pdfDict {
	return pdfDict{d.objStm || e.objStm, d.sure | e.sure, d.filterKey || e.filterKey, d.filter || e.filter, d.names.or(e.names), d.vals.or(e.vals)}
}

const pdfTail = 1024

func newPDFCheck(r Limits) contentCheck {
	p := &pdfCheck{allowScripts: r.AllowPDFScripts, tail: make([]byte, 0, pdfTail), rawFrom: -1, rawData: -1}
	p.objStms.defs = &p.defs
	return p
}

// scan reads a window (check, pdf_encrypt.go, holds what it cannot read
// while the file may still turn out encrypted).
func (p *pdfCheck) scan(w *window) *Finding {
	if !p.started { // the first window holds the header (sniff found it there)
		p.started = true
		if fe := pdfPrefix(w.buf); fe != nil {
			return fe
		}
	}
	if !p.allowScripts {
		if fe := p.uri.scan(w); fe != nil {
			return fe
		}
	}
	p.keepTail(w.buf[w.fresh:])
	buf, lim := w.buf, w.index(w.limit)
	text := w.from                               // where the text outside stream data resumed, when not in data
	slash, obj, stream, hash := -1, lim, -1, lim // the next of each at or after i, or lim
	if !p.allowScripts {
		obj, hash = -1, -1
	}
	for i := w.index(w.from); i < lim; {
		if slash < i {
			slash = nextIndex(buf, i, lim, "/")
		}
		if obj < i {
			obj = nextIndex(buf, i, lim, "obj")
		}
		if stream < i {
			stream = nextIndex(buf, i, lim, "stream")
		}
		if hash < i {
			hash = nextIndex(buf, i, lim, "#")
		}
		e := min(slash, obj, stream, hash)
		if e >= lim {
			break
		}
		var fe *Finding
		switch e {
		case slash:
			if name, ok := pdfNameAt(buf, e, &p.name); ok && p.allowScripts {
				fe = p.onEncrypt(w, e, name)
			} else if ok {
				fe = p.onName(w, e, name)
			}
		case obj:
			top := false
			if !p.inData && pdfKeyword(w, e, 3) {
				p.syntax.advance(w, w.base+int64(e))
				p.objTop = p.syntax.top()
				if p.objTop {
					p.dict, top = pdfDict{}, true
				}
			}
			p.defs.define(w, e, top)
			p.def = p.def || p.inData && pdfDefinitionAt(w, e)
		case hash:
			fe = p.onHash(w, e)
		case stream:
			if e >= 3 && string(buf[e-3:e]) == "end" {
				// Nine bytes no compressor spells by chance: whatever
				// comes before "endstream", the data has ended.
				if p.inData {
					fe = p.endData(w, w.base+int64(e-3), &text)
				}
			} else if pdfKeyword(w, e, 6) {
				fe = p.onStream(w, e, &text)
			}
		}
		if fe != nil {
			return fe
		}
		i = e + 1
	}
	if p.isText() {
		if fe := p.searchTo(w, text, w.limit); fe != nil {
			return fe
		}
	}
	if p.allowScripts {
		return nil
	}
	if !p.inData || p.pseudo {
		p.syntax.advance(w, w.limit)
	}
	if p.rawObjStm {
		p.feedHeader(w, w.limit, w.final)
	}
	return p.objStms.take(w, w.limit)
}

// onName handles a decoded name whose solidus is at w.buf[e].
func (p *pdfCheck) onName(w *window, e int, name []byte) *Finding {
	raw := p.rawObjStm || p.rawToEOF
	if pdfActiveName(name) {
		if pdfShortName(name) && p.inData && !raw && !p.pseudo && !p.def && !p.efKey(w, e, name) {
			if p.heldShort == nil && len(p.defs.lens.held) > 0 {
				p.heldShort = pdfActive(string(name))
			}
			return nil
		}
		return pdfActive(string(name))
	}
	p.def = p.def || p.aaKey(w, e, name)
	p.defs.name(name)
	if raw || len(p.defs.lens.held) > 0 {
		p.defs.content(name)
	}
	p.dict.names.add(name)
	switch string(name) {
	case "ObjStm":
		p.dict.objStm, p.dict.sure = true, p.dict.sure|dictObjStm
	case "First":
		p.dict.objStm, p.dict.sure = true, p.dict.sure|dictFirst
	case "N":
		p.dict.sure |= dictN
		// MuPDF reads an object stream by /N alone (/First missing is 0)
		// from any stream an xref stream places objects in, whatever its
		// /Type: a stream whose own dictionary has /N is inflated and
		// searched as one. An /N deeper down (a function's, inside an
		// image's color space) is not the stream's.
		nested := false
		if !p.inData && p.objTop {
			p.syntax.advance(w, w.base+int64(e))
			nested = (p.syntax.state != synTop || p.syntax.depth != 1) && !p.syntax.odd && !p.syntax.lost
		}
		if !nested {
			p.dict.objStm, p.dict.sure = true, p.dict.sure|dictOwnN
		}
	case "Filter":
		p.dict.filterKey, p.dict.filter = true, true
	case "F":
		p.dict.filterKey = true
	case "Encrypt":
		if fe := p.onEncrypt(w, e, name); fe != nil {
			return fe
		}
		p.encrypted = true
	}
	if key := pdfStreamKey(name); key != 0 {
		p.dict.vals.add(key, pdfValueAt(w.buf, pdfNameEnd(w.buf, e), w.final))
	}
	return nil
}

func (p *pdfCheck) finish(int64) *Finding {
	if p.held != nil {
		return p.held
	}
	eof := bytes.LastIndex(p.tail, []byte("%%EOF"))
	if eof < 0 {
		return refuse(Truncated, "el PDF está incompleto: no termina con %%EOF")
	}
	// What follows the last %%EOF is outside the PDF, whatever a stream
	// left open says (a viewer stops there).
	if m := activeContent(p.tail[eof:]); m != "" {
		return polyglot(m)
	}
	if p.allowScripts {
		return nil
	}
	if fe := p.objStms.end(nil, 0); fe != nil {
		return fe
	}
	if p.encrypted && p.objStms.count > 0 {
		return refuse(ActiveContent, "el PDF está cifrado y guarda objetos comprimidos que no se pueden inspeccionar; envíelo sin cifrar")
	}
	if fe := p.defs.finish(); fe != nil {
		return fe
	}
	return p.heldMarker()
}
