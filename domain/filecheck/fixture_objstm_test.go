package filecheck

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
)

// xrefPDF lays out a PDF 1.5 with object streams and a correct,
// uncompressed cross-reference stream, so that an independent reader
// (pdfcpu, in the oracle tests) finds every object where it is.
type xrefPDF struct {
	b       bytes.Buffer
	entries map[int][3]int // object number: type (1 at an offset, 2 in a stream), offset or stream, generation or index
}

func newXrefPDF() *xrefPDF {
	p := &xrefPDF{entries: map[int][3]int{}}
	p.b.WriteString("%PDF-1.5\n%\xE2\xE3\xCF\xD3\n")
	return p
}

// obj writes object n at the top level.
func (p *xrefPDF) obj(n int, body string) {
	p.entries[n] = [3]int{1, p.b.Len(), 0}
	fmt.Fprintf(&p.b, "%d 0 obj\n%s\nendobj\n", n, body)
}

// stream writes stream n; dict is written as given, /Length included.
func (p *xrefPDF) stream(n int, dict string, data []byte) {
	p.entries[n] = [3]int{1, p.b.Len(), 0}
	fmt.Fprintf(&p.b, "%d 0 obj\n<<%s>>\nstream\n", n, dict)
	p.b.Write(data)
	p.b.WriteString("\nendstream\nendobj\n")
}

// member is an object inside an object stream; pre is written in the
// stream's data before it, where no offset points.
type member struct {
	num       int
	body, pre string
}

// objStm writes object stream n holding members: its data (header and
// bodies) is given to encode, its dictionary is dict plus /Type, /N,
// /First and, unless dict has one, a direct /Length.
func (p *xrefPDF) objStm(n int, dict string, members []member, encode func([]byte) []byte) {
	var head, body strings.Builder
	for i, m := range members {
		body.WriteString(m.pre)
		fmt.Fprintf(&head, "%d %d ", m.num, body.Len())
		body.WriteString(m.body + "\n")
		p.entries[m.num] = [3]int{2, n, i}
	}
	data := encode([]byte(head.String() + body.String()))
	d := fmt.Sprintf(" /Type /ObjStm /N %d /First %d%s", len(members), head.Len(), dict)
	if !strings.Contains(dict, "/Length") {
		d += fmt.Sprintf(" /Length %d", len(data))
	}
	p.stream(n, d, data)
}

// finish writes the cross-reference stream (object n, W [1 4 2]), with
// the trailer entries trailer, startxref and %%EOF.
func (p *xrefPDF) finish(n int, trailer string) []byte {
	p.entries[n] = [3]int{1, p.b.Len(), 0}
	size := n + 1
	for k := range p.entries {
		size = max(size, k+1)
	}
	nums := make([]int, 0, len(p.entries))
	for k := range p.entries {
		nums = append(nums, k)
	}
	sort.Ints(nums)
	var rows []byte
	index := ""
	rows = append(rows, 0, 0, 0, 0, 0, 0xFF, 0xFF) // object 0, free
	index += "0 1"
	for _, k := range nums {
		e := p.entries[k]
		rows = append(rows, byte(e[0]))
		rows = binary.BigEndian.AppendUint32(rows, uint32(e[1]))
		rows = binary.BigEndian.AppendUint16(rows, uint16(e[2]))
		index += fmt.Sprintf(" %d 1", k)
	}
	at := p.b.Len()
	fmt.Fprintf(&p.b, "%d 0 obj\n<< /Type /XRef /Size %d /Index [ %s ] /W [ 1 4 2 ]%s /Length %d >>\nstream\n", n, size, index, trailer, len(rows))
	p.b.Write(rows)
	fmt.Fprintf(&p.b, "\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n", at)
	return bytes.Clone(p.b.Bytes())
}

// scriptMembers are a catalog whose /OpenAction runs a script, its page
// tree and the action, as members 1, 2 and 3 of an object stream.
func scriptMembers(action string) []member {
	return []member{
		{num: 1, body: "<< /Type /Catalog /Pages 2 0 R /OpenAction 3 0 R >>"},
		{num: 2, body: "<< /Type /Pages /Kids [] /Count 0 >>"},
		{num: 3, body: action},
	}
}

// pngSub encodes data as PNG predictor rows of columns bytes, each with
// the Sub filter (byte 1): every byte but a row's first becomes its
// difference from the one before, so no name survives in the encoded
// bytes. data is padded with spaces to whole rows.
func pngSub(data []byte, columns int) []byte {
	for len(data)%columns != 0 {
		data = append(data, ' ')
	}
	out := make([]byte, 0, len(data)/columns*(columns+1))
	for r := 0; r < len(data); r += columns {
		out = append(out, 1, data[r])
		for i := r + 1; i < r+columns; i++ {
			out = append(out, data[i]-data[i-1])
		}
	}
	return out
}

func asHex(data []byte) []byte { return append([]byte(hex.EncodeToString(data)), '>') }

func identity(data []byte) []byte { return data }
