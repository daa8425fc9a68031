package filecheck

import (
	"encoding/binary"
	"slices"
)

// TIFF structures built field by field, for the tests of the walk.

// tField is one directory entry: its tag, its type and its values as
// they are written (a value of at most 4 bytes sits in the entry).
type tField struct {
	tag, typ uint16
	count    uint32
	value    []byte
	at       uint32 // not 0: the values are already there, at this offset
}

// tiffBuild lays out a TIFF: the header, then blobs and directories in
// the order they are added.
type tiffBuild struct {
	o    byteOrder
	b    []byte
	next int // where the offset of the next chained directory goes
}

func newTIFFBuild(o byteOrder) *tiffBuild {
	b := []byte("MM\x00*\x00\x00\x00\x00")
	if o == binary.LittleEndian {
		b = []byte("II*\x00\x00\x00\x00\x00")
	}
	return &tiffBuild{o: o, b: b, next: 4}
}

// blob appends p and returns its offset.
func (t *tiffBuild) blob(p []byte) uint32 {
	off := uint32(len(t.b))
	t.b = append(t.b, p...)
	return off
}

// dir appends a directory of fields (their values after it when they do
// not fit in an entry) and returns its offset; chained, the directory
// before it in the chain points to it.
func (t *tiffBuild) dir(chained bool, fields ...tField) uint32 {
	fields = slices.Clone(fields)
	slices.SortStableFunc(fields, func(a, b tField) int { return int(a.tag) - int(b.tag) })
	at := uint32(len(t.b))
	valuesAt := at + 2 + 12*uint32(len(fields)) + 4
	var values []byte
	d := t.o.AppendUint16(nil, uint16(len(fields)))
	for _, f := range fields {
		d = t.o.AppendUint32(t.o.AppendUint16(t.o.AppendUint16(d, f.tag), f.typ), f.count)
		if f.at != 0 {
			d = t.o.AppendUint32(d, f.at)
			continue
		}
		if len(f.value) <= 4 {
			v := make([]byte, 4)
			copy(v, f.value)
			d = append(d, v...)
			continue
		}
		d = t.o.AppendUint32(d, valuesAt+uint32(len(values)))
		values = append(values, f.value...)
	}
	d = append(d, 0, 0, 0, 0) // the next directory: none yet
	if chained {
		t.o.PutUint32(t.b[t.next:], at)
		t.next = int(at) + len(d) - 4
	}
	t.b = append(append(t.b, d...), values...)
	return at
}

func (t *tiffBuild) bytes() []byte { return t.b }

// Fields of each type.
func tShort(tag uint16, v ...uint16) tField {
	f := tField{tag: tag, typ: 3, count: uint32(len(v))}
	for _, x := range v {
		f.value = binary.BigEndian.AppendUint16(f.value, x)
	}
	return f
}

func tLong(tag uint16, v ...uint32) tField {
	f := tField{tag: tag, typ: 4, count: uint32(len(v))}
	for _, x := range v {
		f.value = binary.BigEndian.AppendUint32(f.value, x)
	}
	return f
}

func tASCII(tag uint16, s string) tField {
	return tField{tag: tag, typ: 2, count: uint32(len(s) + 1), value: append([]byte(s), 0)}
}

func tBytes(tag, typ uint16, p []byte) tField {
	return tField{tag: tag, typ: typ, count: uint32(len(p)), value: p}
}

// inOrder rewrites the SHORT and LONG values of fields, built big-endian
// above, in the order o.
func inOrder(o byteOrder, fields []tField) []tField {
	out := slices.Clone(fields)
	for i, f := range out {
		switch f.typ {
		case 3:
			v := make([]byte, 0, len(f.value))
			for j := 0; j < len(f.value); j += 2 {
				v = o.AppendUint16(v, binary.BigEndian.Uint16(f.value[j:]))
			}
			out[i].value = v
		case 4:
			v := make([]byte, 0, len(f.value))
			for j := 0; j < len(f.value); j += 4 {
				v = o.AppendUint32(v, binary.BigEndian.Uint32(f.value[j:]))
			}
			out[i].value = v
		}
	}
	return out
}

// greyTIFF is an 8-bit grey TIFF of width×rows whose one strip, pixels,
// is compressed as compression says, with more fields in IFD0.
func greyTIFF(o byteOrder, width, rows uint32, compression uint16, pixels []byte, more ...tField) []byte {
	t := newTIFFBuild(o)
	strip := t.blob(pixels)
	fields := append([]tField{
		tLong(256, width), tLong(257, rows), tShort(258, 8), tShort(259, compression), tShort(262, 1),
		tLong(273, strip), tShort(277, 1), tLong(278, rows), tLong(279, uint32(len(pixels))),
	}, more...)
	t.dir(true, inOrder(o, fields)...)
	return t.bytes()
}
