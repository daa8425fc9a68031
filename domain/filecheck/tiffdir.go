package filecheck

import "strconv"

// tiffTypeSize is the size of one value of a TIFF field type, or 0 for
// a type the walk does not know (readers skip such entries).
func tiffTypeSize(typ uint16) int64 {
	switch typ {
	case 1, 2, 6, 7, 129: // BYTE, ASCII, SBYTE, UNDEFINED, UTF-8
		return 1
	case 3, 8: // SHORT, SSHORT
		return 2
	case 4, 9, 11, 13: // LONG, SLONG, FLOAT, IFD
		return 4
	case 5, 10, 12, 16, 17, 18: // RATIONAL, SRATIONAL, DOUBLE, LONG8, SLONG8, IFD8
		return 8
	}
	return 0
}

// tiffField is where an entry's values are: at off, n bytes, of type typ.
type tiffField struct {
	typ    uint16
	count  int64
	off, n int64
}

// imageFields are the entries of one directory that say where its image
// data is and how it is compressed.
type imageFields struct {
	compression                    int64
	width, height                  int64 // -1 when the tag is absent
	strips, stripLens, tiles, tLen *tiffField
	thumb, thumbLen                *tiffField
}

// dir reads the directory at off and returns the directories it points
// to; 0 is none.
func (t *tiffWalk) dir(off int64) ([]int64, *Finding) {
	if off == 0 {
		return nil, nil
	}
	switch {
	case off < 8:
		return nil, tiffUninspectable("un directorio apunta a la cabecera")
	case t.seen[off]:
		return nil, tiffUninspectable("un directorio se repite (los directorios forman un ciclo)")
	}
	if t.seen[off] = true; len(t.seen) > maxTIFFDirs {
		return nil, tiffUninspectable("tiene más de " + strconv.Itoa(maxTIFFDirs) + " directorios")
	}
	if fe := t.within("un directorio", off, 2); fe != nil {
		return nil, fe
	}
	var b [12]byte
	if fe := t.read(b[:2], off); fe != nil {
		return nil, fe
	}
	n := int64(t.order.Uint16(b[:]))
	if t.entries += int(n); t.entries > maxTIFFEntries {
		return nil, tiffUninspectable("sus directorios tienen más de " + strconv.Itoa(maxTIFFEntries) + " entradas")
	}
	if fe := t.within("un directorio", off, 2+12*n+4); fe != nil {
		return nil, fe
	}
	img := imageFields{compression: 1, width: -1, height: -1} // none, when the tag is absent
	tags := make(map[uint16]bool, n)
	var more []int64
	var subIFDs *tiffField
	piece := int64(len(t.buf) / 12)
	for first := int64(0); first < n; first += piece {
		k := min(piece, n-first)
		p := t.buf[:12*k]
		if fe := t.read(p, off+2+12*first); fe != nil {
			return nil, fe
		}
		for i := int64(0); i < k; i++ {
			e := p[12*i:]
			tag, typ := t.order.Uint16(e), t.order.Uint16(e[2:])
			if tags[tag] && tiffRead(tag) {
				// libtiff takes a tag's first entry, others the last: the
				// check would read one and a reader show the other. (Every
				// entry's bytes are searched, a repeated text's too.)
				return nil, tiffUninspectable("un directorio repite la etiqueta " + strconv.Itoa(int(tag)))
			}
			tags[tag] = true
			f := &tiffField{typ: typ, count: int64(t.order.Uint32(e[4:])), off: off + 2 + 12*(first+i) + 8}
			if tag == tagWidth || tag == tagLength {
				v := t.first(f, e[8:])
				if v < 0 && t.maxPixels > 0 {
					return nil, tiffUninspectable("el ancho o el alto de una imagen no es un SHORT o LONG")
				}
				if tag == tagWidth {
					img.width = v
				} else {
					img.height = v
				}
			}
			size := tiffTypeSize(typ)
			if size == 0 {
				continue
			}
			if f.n = size * f.count; f.n > 4 {
				f.off = int64(t.order.Uint32(e[8:]))
				if fe := t.within("el valor de la etiqueta "+strconv.Itoa(int(tag)), f.off, f.n); fe != nil {
					return nil, fe
				}
			}
			if size == 1 || tag == tagIPTC { // values of bytes
				if fe := t.add(&t.text, f.off, f.n); fe != nil {
					return nil, fe
				}
			}
			switch tag {
			case tagCompression:
				img.compression = t.first(f, e[8:])
			case tagStripOffsets:
				img.strips = f
			case tagStripCounts:
				img.stripLens = f
			case tagTileOffsets:
				img.tiles = f
			case tagTileCounts:
				img.tLen = f
			case tagThumbOffset:
				img.thumb = f
			case tagThumbLength:
				img.thumbLen = f
			case tagSubIFDs:
				subIFDs = f
			case tagExifIFD, tagGPSIFD, tagInterIFD:
				if (typ == 4 || typ == 13) && f.count == 1 {
					more = append(more, int64(t.order.Uint32(e[8:])))
				}
			}
		}
	}
	if fe := t.read(b[:4], off+2+12*n); fe != nil {
		return nil, fe
	}
	more = append(more, int64(t.order.Uint32(b[:4]))) // the next directory, 0 for none
	if subIFDs != nil && (subIFDs.typ == 4 || subIFDs.typ == 13) {
		if subIFDs.count > maxTIFFDirs {
			return nil, tiffUninspectable("tiene más de " + strconv.Itoa(maxTIFFDirs) + " directorios")
		}
		fe := t.values(subIFDs, func(v int64) *Finding { more = append(more, v); return nil })
		if fe != nil {
			return nil, fe
		}
	}
	if fe := t.imageSize(img); fe != nil {
		return nil, fe
	}
	return more, t.image(img)
}

// imageSize holds an image directory of a TIFF file to the bound on
// pixels; a directory that declares neither width nor height (EXIF, GPS)
// is not an image.
func (t *tiffWalk) imageSize(img imageFields) *Finding {
	switch {
	case t.maxPixels <= 0 || img.width < 0 && img.height < 0:
		return nil
	case img.width < 0 || img.height < 0:
		return tiffUninspectable("un directorio declara el ancho de una imagen sin su alto, o el alto sin el ancho")
	}
	return checkPixels("TIFF", uint64(img.width), uint64(img.height), t.maxPixels)
}

// first is the first value of an entry whose values are in its own
// value field (e), as a SHORT or LONG; -1 for any other.
func (t *tiffWalk) first(f *tiffField, e []byte) int64 {
	switch {
	case f.typ == 3 && f.count >= 1 && f.count <= 2:
		return int64(t.order.Uint16(e))
	case f.typ == 4 && f.count == 1:
		return int64(t.order.Uint32(e))
	}
	return -1
}

// values calls each with every value of a SHORT, LONG or IFD entry.
func (t *tiffWalk) values(f *tiffField, each func(int64) *Finding) *Finding {
	size := tiffTypeSize(f.typ)
	if f.typ != 3 && f.typ != 4 && f.typ != 13 {
		return tiffUninspectable("una lista de desplazamientos no es SHORT ni LONG")
	}
	per := int64(len(t.buf)) / size
	for first := int64(0); first < f.count; first += per {
		k := min(per, f.count-first)
		p := t.buf[:k*size]
		if fe := t.read(p, f.off+first*size); fe != nil {
			return fe
		}
		for i := int64(0); i < k; i++ {
			var v int64
			if size == 2 {
				v = int64(t.order.Uint16(p[2*i:]))
			} else {
				v = int64(t.order.Uint32(p[4*i:]))
			}
			if fe := each(v); fe != nil {
				return fe
			}
		}
	}
	return nil
}

// add keeps the span [off, off+n) in list, within the bound on spans.
func (t *tiffWalk) add(list *[]span, off, n int64) *Finding {
	if n == 0 {
		return nil
	}
	if len(t.compressed)+len(t.text)+len(t.deflated)+len(t.pixels) >= maxTIFFSpans {
		return tiffUninspectable("nombra más de " + strconv.Itoa(maxTIFFSpans) + " tiras, teselas y textos")
	}
	*list = append(*list, span{uint32(off), uint32(n)})
	return nil
}

// image keeps a directory's image data: its strips or tiles, each with
// its length, and its JPEG thumbnail. Data that Compression says is
// stored as it is (1, none; 32773, PackBits, whose literal runs are the
// bytes as they are), or whose Compression the walk cannot read, is
// searched as pixels (pixeltext.go); deflated data
// (8 and 32946) is walked for its stored blocks; any other compression
// is skipped, as compressed data is.
func (t *tiffWalk) image(img imageFields) *Finding {
	list := &t.compressed
	switch img.compression {
	case 1, 32773, -1: // -1: a Compression of another type, which the walk cannot read
		list = &t.pixels
	case 8, 32946:
		list = &t.deflated
	}
	for _, pair := range [][2]*tiffField{{img.strips, img.stripLens}, {img.tiles, img.tLen}, {img.thumb, img.thumbLen}} {
		offs, lens := pair[0], pair[1]
		if offs == nil && lens == nil {
			continue
		}
		if offs == nil || lens == nil || offs.count != lens.count {
			return tiffUninspectable("sus tiras o teselas no dicen dónde están y cuánto miden")
		}
		if offs.count > maxTIFFSpans {
			return tiffUninspectable("nombra más de " + strconv.Itoa(maxTIFFSpans) + " tiras, teselas y textos")
		}
		starts := make([]int64, 0, offs.count)
		if fe := t.values(offs, func(v int64) *Finding { starts = append(starts, v); return nil }); fe != nil {
			return fe
		}
		i := 0
		fe := t.values(lens, func(n int64) *Finding {
			off := starts[i]
			i++
			if fe := t.within("una tira o tesela", off, n); fe != nil {
				return fe
			}
			switch {
			case offs == img.thumb:
				return t.add(&t.compressed, off, n) // a JPEG
			case list == &t.deflated:
				if fe := t.add(&t.compressed, off, n); fe != nil {
					return fe
				}
				return t.add(&t.deflated, off, n)
			}
			return t.add(list, off, n)
		})
		if fe != nil {
			return fe
		}
	}
	return nil
}

// tiffRead reports whether the walk reads tag's value (where the image
// data is, how it is compressed, the size, the directories it points to).
func tiffRead(tag uint16) bool {
	switch tag {
	case tagWidth, tagLength, tagCompression, tagStripOffsets, tagStripCounts, tagTileOffsets, tagTileCounts,
		tagThumbOffset, tagThumbLength, tagSubIFDs, tagExifIFD, tagGPSIFD, tagInterIFD, tagIPTC:
		return true
	}
	return false
}
