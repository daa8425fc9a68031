#!/usr/bin/env python3
"""Review 23 generator. Object 10 (a file specification with /EF, played by
the Screen annotation 9) is written inside the DATA of another stream
(object 5), where the check ignores the two-letter /EF; the
cross-reference (table or xref stream) points object 10 at that offset.
Object 13, the embedded file, has no /Type /EmbeddedFile (optional).
Writes /tmp/rev23/pdfs/<variant>.pdf."""
import os, struct, sys, zlib

OUT = "/tmp/rev23/pdfs"
os.makedirs(OUT, exist_ok=True)
PAYLOAD = b"10 0 obj\n<< /Type /Filespec /F (a.mp4) /UF (a.mp4) /EF << /F 13 0 R >> >>\nendobj\n"

VAR = {
    # name: (stream 5 dictionary extra, xref kind, in xref?)
    "data-plain-tbl":  (b"", "table", True),
    "data-plain-xrs":  (b"", "xrefstm", True),
    "data-dct-tbl":    (b"/Filter /DCTDecode /Width 1 /Height 1 /ColorSpace /DeviceGray /BitsPerComponent 8 /Subtype /Image /Type /XObject ", "table", True),
    "data-stored-tbl": (b"/Filter /FlateDecode ", "table", True),  # object 10 in a stored deflate block of a real zlib stream
    "data-ctl":        (b"", "table", False),     # control: object 10 not in the xref
}

def build(variant):
    extra, xk, inx = VAR[variant]
    b = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    off = {}
    def obj(num, body):
        off[num] = len(b)
        b.extend(b"%d 0 obj\n" % num + body + b"\nendobj\n")
    obj(1, b"<< /Type /Catalog /Pages 2 0 R >>")
    obj(2, b"<< /Type /Pages /Kids [ 3 0 R ] /Count 1 >>")
    obj(3, b"<< /Type /Page /Parent 2 0 R /MediaBox [ 0 0 200 200 ] /Annots [ 9 0 R ] >>")
    data = b"%% some bytes\n" + PAYLOAD + b"%% more\n"
    if b"FlateDecode" in extra:
        co = zlib.compressobj(0)   # level 0: stored blocks, bytes as they are
        data = co.compress(b"q Q\n" + PAYLOAD + b"\n") + co.flush()
    off5 = len(b)
    head = b"5 0 obj\n<< /Length %d %s>>\nstream\n" % (len(data), extra)
    if inx:
        off[10] = off5 + len(head) + data.index(b"10 0 obj")
    off[5] = off5
    b.extend(head + data + b"\nendstream\nendobj\n")
    obj(9, b"<< /Type /Annot /Subtype /Screen /Rect [ 0 0 100 100 ] /A << /S /Rendition /OP 0 "
           b"/R << /S /MR /C << /S /MCD /CT (video/mp4) /D 10 0 R >> >> >> >>")
    mp4 = b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom"
    obj(13, b"<< /Length %d >>\nstream\n" % len(mp4) + mp4 + b"\nendstream")
    size = 15
    if xk == "table":
        x = len(b)
        b.extend(b"xref\n0 %d\n" % size)
        for n in range(size):
            if n in off:
                b.extend(b"%010d 00000 n \n" % off[n])
            else:
                b.extend(b"0000000000 65535 f \n")
        b.extend(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (size, x))
    else:
        off[14] = len(b)
        rows = bytearray()
        for n in range(size):
            if n in off:
                rows += struct.pack(">BIH", 1, off[n], 0)
            else:
                rows += struct.pack(">BIH", 0, 0, 65535 if n == 0 else 0)
        b.extend(b"14 0 obj\n<< /Type /XRef /Size %d /W [ 1 4 2 ] /Root 1 0 R /Length %d >>\nstream\n" % (size, len(rows)))
        b.extend(rows + b"\nendstream\nendobj\n")
        b.extend(b"startxref\n%d\n%%%%EOF\n" % off[14])
    return bytes(b)

for v in (sys.argv[1:] or VAR):
    with open(os.path.join(OUT, v + ".pdf"), "wb") as f:
        f.write(build(v))
