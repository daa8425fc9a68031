package filecheck

import (
	"bytes"
	"encoding/ascii85"
)

// The ASCII encodings an object stream's deflated data may be written in
// (its /Filter [/ASCIIHexDecode /FlateDecode] or [/ASCII85Decode
// /FlateDecode]), decoded as ISO 32000-1 §7.4.2 and §7.4.3 say before the
// data inflates.
const (
	textNone = iota
	textHex
	textA85
)

// untext decodes data as o.text says into a buffer of its own; ok is
// false when it is not that encoding (the stream then does not inflate:
// notInflated). Data that is not ASCII-encoded comes back as it is.
func (o *objStms) untext(data []byte) (out []byte, ok bool) {
	switch o.text {
	case textHex:
		return decodeAHx(data)
	case textA85:
		return decodeA85(data)
	}
	return data, true
}

// decodeAHx decodes ASCIIHexDecode data: pairs of hex digits, white space
// ignored, up to '>' (required); an odd last digit is followed by 0.
func decodeAHx(data []byte) ([]byte, bool) {
	end := bytes.IndexByte(data, '>')
	if end < 0 {
		return nil, false
	}
	out := make([]byte, 0, end/2+1)
	hi := -1
	for _, c := range data[:end] {
		var v int
		switch {
		case pdfWhite(c):
			continue
		case '0' <= c && c <= '9':
			v = int(c - '0')
		case 'a' <= c && c <= 'f':
			v = int(c-'a') + 10
		case 'A' <= c && c <= 'F':
			v = int(c-'A') + 10
		default:
			return nil, false
		}
		if hi < 0 {
			hi = v
			continue
		}
		out = append(out, byte(hi<<4|v))
		hi = -1
	}
	if hi >= 0 {
		out = append(out, byte(hi<<4))
	}
	return out, true
}

// decodeA85 decodes ASCII85Decode data: up to "~>" (required), white space
// ignored, 'z' for four zeros.
func decodeA85(data []byte) ([]byte, bool) {
	end := bytes.Index(data, []byte("~>"))
	if end < 0 {
		return nil, false
	}
	src := data[:end]
	for _, c := range src {
		if !pdfWhite(c) && (c < '!' || c > 'u') && c != 'z' {
			return nil, false
		}
	}
	// Each 'z' is 4 bytes; a group of 5 characters, 4 (Decode stops
	// without an error when out is full: every source byte must be used).
	z := bytes.Count(src, []byte("z"))
	out := make([]byte, 4*(len(src)-z)/5+4+4*z)
	n, used, err := ascii85.Decode(out, src, true)
	if err != nil || used != len(src) {
		return nil, false
	}
	return out[:n], true
}

// asIs reads an ASCII-then-Flate object stream's decoded data as an
// uncompressed object stream when it opens with no zlib header: every
// name counts and its header's numbers are noted. The filter a viewer
// applies is what /Filter (or /F) holds, which may be the ASCII one alone
// while a /FlateDecode is named elsewhere ("/Filter /AHx %/FlateDecode":
// the twentieth session's third review); a stored deflate block then
// spells the header, and the objects the check's inflating never reached
// lie after it.
func (o *objStms) asIs(data []byte) *Finding {
	if len(data) >= 2 && zlibHeader(data[0], data[1]) {
		return nil
	}
	win := window{buf: data, final: true}
	win.limit = win.end()
	hdr := objStmHeader{on: true}
	hdr.feed(data, o.defs, true)
	if fe := o.names(&win); fe != nil {
		return fe
	}
	o.uri = pdfURIScan{}
	return o.uri.scan(&win)
}
