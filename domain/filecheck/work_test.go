package filecheck

import (
	"encoding/base64"
	"encoding/binary"
	"strings"
	"testing"
)

// entryBombTIFF is the TIFF of issue 32's finding 4, built here: dirs
// chained directories of 65,000 ASCII entries each (after ImageWidth and
// ImageLength in the first), every value 8 bytes near the end of the
// file, past the first MiB, so that a walk that reads an entry and then
// its value decodes two blocks far apart for every entry. Each entry of
// a directory has a tag of its own (a repeated tag is refused), one the
// walk gives no meaning to.
func entryBombTIFF(dirs int) []byte {
	o := binary.LittleEndian
	const n = 65000
	var free []uint16
	for tag := 1; tag < 1<<16; tag++ {
		switch tag {
		case tagWidth, tagLength, tagCompression, tagStripOffsets, tagStripCounts, tagTileOffsets, tagTileCounts,
			tagThumbOffset, tagThumbLength, tagSubIFDs, tagExifIFD, tagGPSIFD, tagInterIFD, tagIPTC:
			continue
		}
		free = append(free, uint16(tag))
	}
	const text = 300 << 10
	dirLen := 2 + 12*n + 4
	textAt := 8 + dirs*dirLen
	b := make([]byte, 0, textAt+text)
	b = append(b, "II*\x00"...)
	b = o.AppendUint32(b, 8)
	k := 0
	for d := 0; d < dirs; d++ {
		b = o.AppendUint16(b, n)
		for i := 0; i < n; i++ {
			switch {
			case d == 0 && i == 0:
				b = o.AppendUint32(o.AppendUint32(o.AppendUint16(o.AppendUint16(b, 256), 4), 1), 640)
			case d == 0 && i == 1:
				b = o.AppendUint32(o.AppendUint32(o.AppendUint16(o.AppendUint16(b, 257), 4), 1), 480)
			default:
				b = o.AppendUint32(o.AppendUint32(o.AppendUint16(o.AppendUint16(b, free[i]), 2), 8), uint32(textAt+(k*8)%text))
				k++
			}
		}
		next := uint32(0)
		if d+1 < dirs {
			next = uint32(len(b) + 4)
		}
		b = o.AppendUint32(b, next)
	}
	for len(b) < textAt+text {
		b = append(b, "value12\x00"...)
	}
	return b
}

// TestTIFFEntryBombWork: the TIFF of finding 4 (3.4 MB: four
// directories of 65,000 entries, their values at the end) is refused as
// uninspectable (more entries than the bound) having decoded a few blocks
// again; one such directory (1 MB) passes, read with each block of the
// file decoded again about twice, not twice per entry. Both in blocks of
// the service's size and of 3,333 bytes; the work stays within its bound.
func TestTIFFEntryBombWork(t *testing.T) {
	t.Parallel()
	for _, dirs := range []int{4, 1} {
		bomb := entryBombTIFF(dirs)
		text := base64.StdEncoding.EncodeToString(bomb)
		for _, chunk := range []int{decodedChunk, 3 * 1111} {
			wk := &work{}
			_, fe := inspectIn(text, testLimits(), chunk, wk)
			blocks := int64(len(bomb)/chunk + 1)
			t.Logf("%d directories, blocks of %d: %d bytes, %d blocks, %d decoded again, work %d of %d; %v",
				dirs, chunk, len(bomb), blocks, wk.decodes, wk.spent, wk.limit, fe)
			switch {
			case dirs == 4 && (fe == nil || fe.Kind != TypeRefused || !strings.Contains(fe.Detail, "entradas")):
				t.Fatalf("%d directories: %+v, want a refusal for the entries", dirs, fe)
			case dirs == 1 && fe != nil:
				t.Fatalf("one directory: refused as %s: %s", fe.Kind, fe.Detail)
			}
			if wk.decodes > 3*blocks || wk.spent > wk.limit {
				t.Fatalf("%d blocks decoded again for a file of %d, work %d: the walk reads the file more than thrice", wk.decodes, blocks, wk.spent)
			}
		}
	}
}

// TestWorkBound: a TIFF whose text values all lie in its (LZW) strip, so
// that each is read on its own, 2 MiB each, 18 of them, names far more
// bytes than it has: it is refused as uninspectable once the work counted
// passes the bound, before it is all read.
func TestWorkBound(t *testing.T) {
	t.Parallel()
	o := binary.LittleEndian
	tb := newTIFFBuild(o)
	pixels := make([]byte, 3<<20)
	strip := tb.blob(pixels)
	fields := []tField{tLong(256, 1024), tLong(257, 3<<10), tShort(258, 8), tShort(259, 5), tLong(273, strip), tLong(279, uint32(len(pixels)))}
	for i := range 18 {
		fields = append(fields, tField{tag: uint16(40000 + i), typ: 2, count: 2 << 20, at: strip})
	}
	tb.dir(true, inOrder(o, fields)...)
	_, fe := Inspect(base64.StdEncoding.EncodeToString(tb.bytes()), testLimits())
	if fe == nil || fe.Kind != TypeRefused || !strings.Contains(fe.Detail, "veces su tamaño") {
		t.Fatalf("got %+v, want a refusal for the work", fe)
	}
}

// TestStop: a closed stop channel ends a check before or while it reads
// the file, with a finding of Kind Stopped, which is no verdict on the
// file; an open one changes nothing.
func TestStop(t *testing.T) {
	t.Parallel()
	text := base64.StdEncoding.EncodeToString(entryBombTIFF(1))
	closed := make(chan struct{})
	close(closed)
	if _, fe := InspectUntil(text, testLimits(), closed); fe == nil || fe.Kind != Stopped {
		t.Fatalf("closed: %+v", fe)
	}
	// Closed once the pass has begun: the reread sees it.
	wk := &work{stop: closed, nextPoll: 1 << 62}
	wk.limit = maxWork(int64(len(text)))
	if fe := wk.spend(1); fe != nil {
		t.Fatalf("before the poll: %+v", fe)
	}
	wk.nextPoll = 0
	if fe := wk.spend(1); fe == nil || fe.Kind != Stopped {
		t.Fatalf("at the poll: %+v", fe)
	}
	if _, fe := InspectUntil(text, testLimits(), make(chan struct{})); fe != nil {
		t.Fatalf("open: %+v", fe)
	}
}
