#!/usr/bin/env python3
"""Review 22 variant of review 21's generator (nest-*): after the stored
block, the raw data holds a second "stream" keyword followed by real zlib
data, so the check's rawZlib (set at every startData, nested ones too)
says "zlib" at endRawData, and /First no longer makes names count to the
end of the file. Review 21's text follows.
Review 21 generator. Object stream 4 is uncompressed to every viewer
(no /Filter, or a /Filter that names nothing), but its data is also a
valid raw-deflate final stored block, so the check's "inflated" reading
succeeds. Its only member (object 10, a file specification with /EF) lies
past its first endstream, inside the data of stream 6, where /EF alone
does not count. pdf.js reaches it by /First (last member read to EOF);
MuPDF (m-*) by a /Length reaching past the first endstream.
Writes /tmp/rev21/pdfs/<variant>.pdf."""
import os, struct, sys, zlib

OUT = "/tmp/rev22/pdfs"
os.makedirs(OUT, exist_ok=True)
PAYLOAD = b"<< /Type /Filespec /F (a.mp4) /UF (a.mp4) /EF << /F 13 0 R >> >>"

# what object 4's dictionary says beside /Type /ObjStm /N /First /Length
DICT = {
    # (a): a /Filter reference the check sees that is not the stream's
    "filtercomment": b"%/Filter 7 0 R\n",
    "filterstring": b"/Foo (/Filter 7 0 R) ",
    "nested": b"/Foo << /Filter 7 0 R >> ",
    # (a): a real /Filter reference whose object names no filter to a viewer
    "nulldecoy": b"/Filter 7 0 R ",      # 7: null %/FlateDecode  (refused: control)
    "arrdecoy": b"/Filter 7 0 R ",       # 7: [ ] % /FlateDecode
    "unknownname": b"/Filter 7 0 R ",    # 7: /Foo % /FlateDecode
    "twodefs": b"/Filter 7 0 R ",        # 7 defined /FlateDecode, and null (xref)
    "undefined": b"/Filter 77 0 R ",     # 77 undefined; an object stream names /FlateDecode
    # a FlateDecode name in the dictionary that is not the /Filter's
    "b-nofilter": b"/Foo /FlateDecode ",
    "b-emptyarr": b"/Filter [ ] /Foo /FlateDecode ",
    "b-cmt": b"/Filter %/FlateDecode\n[ ] ",
    "b-null": b"/Filter null %/FlateDecode\n",
    "m-nofilter": b"/Foo /FlateDecode ",
    "m-cmt": b"/Filter %/FlateDecode\n[ ] ",
    "m-control": b"/Filter /FlateDecode ",
    # pdf.js reads dict.get("F", "Filter"): /F first
    "b-fnull": b"/Filter /FlateDecode /F null ",
    "b-farr": b"/Filter /FlateDecode /F [ ] ",
    "b-control": b"/Filter /FlateDecode ",
    # pdf.js reads "7 0 obj5" as the integer 5 (fetchUncompressed); the check sees no definition
    "objdigit": b"/Filter 7 0 R ",  # really Flate: MuPDF reads the stored block (control)
}


def stored(header_bytes_1_2, payload_len):
    """A final stored block whose LEN is bytes 1,2 of the data."""
    LEN = header_bytes_1_2[0] | header_bytes_1_2[1] << 8
    return LEN


def build(variant):
    b = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    off, comp = {}, {}

    def obj(num, body):
        off[num] = len(b)
        b.extend(b"%d 0 obj\n" % num + body + b"\nendobj\n")

    obj(1, b"<< /Type /Catalog /Pages 2 0 R >>")
    obj(2, b"<< /Type /Pages /Kids [ 3 0 R ] /Count 1 >>")
    obj(3, b"<< /Type /Page /Parent 2 0 R /MediaBox [ 0 0 200 200 ] /Annots [ 9 0 R ] >>")
    gap = b"\nendstream\nendobj\n6 0 obj\n<< /Length %d >>\nstream\n" % (len(PAYLOAD) + 1)
    mupdf = variant.startswith("m-") or variant.startswith("nest-m-")
    if mupdf:
        # "10%": both lexers read 10, then a comment over NLEN to the LF
        # that opens the stored payload, then the member's offset.
        LEN = ord("0") | ord("%") << 8  # "10%": MuPDF takes the member by its number, 10
        head = b"10%" + struct.pack("<H", LEN ^ 0xFFFF)
        total = len(head) + LEN
        nest = b"\nstream\n" + zlib.compress(b"harmless") if variant.startswith("nest-") else b""
        off10 = total + len(nest) + len(gap)  # from the data start: MuPDF's /First is 0
        body = b"\n%d" % off10
        data = head + body + b" " * (LEN - len(body)) + nest
    else:
        LEN = 0x3000  # "1" NUL "0": pdf.js reads "1 0", then stops (N=1)
        head = b"1\x000" + struct.pack("<H", LEN ^ 0xFFFF)
        data = head + b" " * LEN
        if variant.startswith("nest-"):
            data += b"\nstream\n" + zlib.compress(b"harmless")
    assert zlib.decompressobj(-15).decompress(data)[:LEN] == data[5:5 + LEN]
    first = len(data) + len(gap)
    long_len = len(data) + len(gap) + len(PAYLOAD) + 1
    variant = variant[5:] if variant.startswith("nest-") else variant
    if mupdf:
        d = b"<< /N 1 /Length %d %s>>" % (long_len, DICT[variant])
    else:
        d = b"<< /Type /ObjStm /N 1 /First %d /Length %d %s>>" % (first, len(data), DICT[variant])
    off[4] = len(b)
    b.extend(b"4 0 obj\n" + d + b"\nstream\n")
    ds = len(b)
    b.extend(data + gap)
    assert len(b) - ds == first
    b.extend(PAYLOAD + b"\nendstream\nendobj\n")
    comp[10] = (4, 0)
    extra = {"filtercomment": b"/FlateDecode", "filterstring": b"/FlateDecode", "nested": b"/FlateDecode",
             "nulldecoy": b"null %/FlateDecode", "arrdecoy": b"[ ] % /FlateDecode",
             "unknownname": b"/Foo % /FlateDecode", "twodefs": b"/FlateDecode"}
    if variant in extra:
        obj(7, extra[variant])
    if variant == "objdigit":
        obj(7, b"/FlateDecode")  # the decoy the check reads
        off[7] = len(b)
        b.extend(b"7 0 obj5\nendobj\n")
    if variant == "twodefs":
        obj(7, b"null")  # the xref points here
    if variant == "undefined":
        hdr = b"11 0 "
        zz = zlib.compress(hdr + b"<< /Filter /FlateDecode >>")
        obj(8, b"<< /Type /ObjStm /N 1 /First %d /Filter /FlateDecode /Length %d >>\nstream\n" % (len(hdr), len(zz)) + zz + b"\nendstream")
        comp[11] = (8, 0)
    obj(9, b"<< /Type /Annot /Subtype /Screen /Rect [ 0 0 100 100 ] /A << /S /Rendition /OP 0 "
           b"/R << /S /MR /C << /S /MCD /CT (video/mp4) /D 10 0 R >> >> >> >>")
    mp4 = b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom"
    obj(13, b"<< /Length %d >>\nstream\n" % len(mp4) + mp4 + b"\nendstream")
    size = 15
    off[14] = len(b)
    rows = bytearray()
    for n in range(size):
        if n in comp:
            rows += struct.pack(">BIH", 2, comp[n][0], comp[n][1])
        elif n in off:
            rows += struct.pack(">BIH", 1, off[n], 0)
        else:
            rows += struct.pack(">BIH", 0, 0, 65535 if n == 0 else 0)
    b.extend(b"14 0 obj\n<< /Type /XRef /Size %d /W [ 1 4 2 ] /Root 1 0 R /Length %d >>\nstream\n" % (size, len(rows)))
    b.extend(rows + b"\nendstream\nendobj\n")
    b.extend(b"startxref\n%d\n%%%%EOF\n" % off[14])
    return bytes(b)


NEST = True
for v in (sys.argv[1:] or DICT):
    with open(os.path.join(OUT, v + ".pdf"), "wb") as f:
        f.write(build(v))
