package filecheck

import (
	"bufio"
	"errors"
	"io"
)

var errMarker = errors.New("a marker in a stored block")

// searchStored walks the zlib stream that r reads (walkZlib) and searches
// the bytes of its stored blocks as they are, as pixels (pixeltext.go),
// and what follows the stream as it is (contract §10); what names the stream in a
// refusal ("una tira", "el IDAT"). A stream that is not valid deflate
// is refused: the check cannot say what it holds (fail closed).
func searchStored(d *deflateWalk, r *bufio.Reader, buf []byte, what string) *Finding {
	var found string
	err := d.walkZlib(r, func(block io.Reader) error {
		m, err := searchStreamWith(buf, block.Read, pixelMarkerIn)
		if m != "" {
			found = m
			return errMarker
		}
		if err == io.EOF {
			return nil
		}
		return err
	})
	if found != "" {
		return polyglot(found)
	}
	if fe := d.wk.cause(err); fe != nil {
		return fe
	}
	if err != nil {
		return refuse(TypeRefused, "el archivo no se puede inspeccionar: "+what+" no es un flujo zlib válido")
	}
	// What follows the last block (the checksum, and anything a writer
	// left there) is read by no decoder, and is searched as it is.
	m, err := searchStream(buf, r.Read)
	if fe := d.wk.cause(err); fe != nil {
		return fe
	}
	if m != "" {
		return polyglot(m)
	}
	return nil
}

// storedBlocks searches the stored blocks of the deflated strip or tile
// s, when its bytes as they are hold a marker (as a PNG's IDAT is,
// pngdata.go); else none of its blocks can.
func (t *tiffWalk) storedBlocks(s span) *Finding {
	r := io.NewSectionReader(t.at, int64(s.off), int64(s.n))
	m, err := searchStream(t.buf, r.Read)
	if fe := t.wk.cause(err); fe != nil {
		return fe
	}
	if m == "" {
		return nil
	}
	if t.deflate == nil {
		t.deflate = &deflateWalk{wk: t.wk}
		t.bufr = bufio.NewReaderSize(nil, 32<<10)
	}
	t.bufr.Reset(io.NewSectionReader(t.at, int64(s.off), int64(s.n)))
	return searchStored(t.deflate, t.bufr, t.buf, "una tira o tesela comprimida con deflate")
}
