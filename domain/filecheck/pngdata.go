package filecheck

import (
	"bufio"
	"io"
	"strconv"
)

// maxPNGDataChunks bounds the IDAT and fdAT chunks of one PNG, whose
// offsets are kept until the file has passed: encoders write chunks of
// 8 KiB and more, so a 20 MiB PNG has a few thousand. A PNG past the
// bound cannot be inspected and is refused.
const maxPNGDataChunks = 1 << 16

// pngData keeps where a PNG's image data is: the IDAT chunks, which are
// one zlib stream, and the fdAT chunks of an animated PNG without their
// sequence numbers, a stream for each run of them (a frame).
type pngData struct {
	idat, fdat []span
	frames     []int // the first span in fdat of each frame
}

// add keeps the data [from, to) of a chunk of type typ, IDAT or fdAT;
// prev is the type of the chunk before it.
func (p *pngData) add(typ, prev string, from, to int64) *Finding {
	if len(p.idat)+len(p.fdat) >= maxPNGDataChunks {
		return refuse(TypeRefused, "el PNG no se puede inspeccionar: tiene más de "+strconv.Itoa(maxPNGDataChunks)+" bloques de imagen")
	}
	if typ == "IDAT" {
		p.idat = append(p.idat, span{uint32(from), uint32(to - from)})
		return nil
	}
	if prev != "fdAT" {
		p.frames = append(p.frames, len(p.fdat))
	}
	from = min(from+4, to)
	p.fdat = append(p.fdat, span{uint32(from), uint32(to - from)})
	return nil
}

// reread walks each stream of image data for its stored blocks, and
// searches what follows a stream's last block in its chunks as it is,
// when the image data's bytes as they are hold a marker (dataText):
// else no stored block can hold one, nor what follows the streams, and
// no reader of the bytes as they are can see one there. So a PNG is
// walked only when it must be: most are not, and cost no more than
// their one pass. A marker in compressed data (where such bytes spell
// one by chance, or an attacker put one) makes the walk tell where it
// is: in a stored block, it is searched as pixels are; in compressed
// data it is not markup (contract §10); in a stream that is not valid
// zlib, the file is refused.
func (c *pngCheck) reread(at io.ReaderAt, size int64, wk *work) *Finding {
	if !c.dataText.hit {
		return nil
	}
	d := &deflateWalk{wk: wk}
	buf := make([]byte, 32<<10)
	r := bufio.NewReaderSize(nil, 32<<10)
	streams := [][]span{c.data.idat}
	for i, first := range c.data.frames {
		next := len(c.data.fdat)
		if i+1 < len(c.data.frames) {
			next = c.data.frames[i+1]
		}
		streams = append(streams, c.data.fdat[first:next])
	}
	for i, s := range streams {
		if len(s) == 0 {
			continue
		}
		what := "el IDAT"
		if i > 0 {
			what = "un fotograma (fdAT)"
		}
		r.Reset(&spansReader{at: at, spans: s})
		if fe := searchStored(d, r, buf, what); fe != nil {
			return fe
		}
	}
	return nil
}

// spansReader reads the spans of at one after the other.
type spansReader struct {
	at    io.ReaderAt
	spans []span
	off   int64 // read of spans[0]
}

func (s *spansReader) Read(p []byte) (int, error) {
	for len(s.spans) > 0 && s.off == int64(s.spans[0].n) {
		s.spans, s.off = s.spans[1:], 0
	}
	if len(s.spans) == 0 {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), int64(s.spans[0].n)-s.off)]
	n, err := s.at.ReadAt(p, int64(s.spans[0].off)+s.off)
	s.off += int64(n)
	if err == io.EOF && n == len(p) {
		err = nil
	}
	return n, err
}
