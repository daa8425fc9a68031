#!/usr/bin/env python3
"""Review 23b: no stream at all. The check finds the keyword "stream" (and
"endstream") wherever it stands alone, strings included, and ignores /EF
between them as stream data. Object 10, a plain top-level object, is
  << /Type /Filespec /F (a.mp4) /Y ( stream\\n) /EF << /F 13 0 R >> /Z (endstream) >>
which every reader parses as a dictionary with /EF. Variants put the
keywords in a comment instead, or in a hex-string-free name-less spot.
Writes /tmp/rev23/pdfs/str-*.pdf."""
import os, sys
OUT = "/tmp/rev23/pdfs"
VAR = {
    "str-string":  b"<< /Type /Filespec /F (a.mp4) /UF (a.mp4) /Y ( stream\n) /EF << /F 13 0 R >> /Z (endstream) >>",
    "str-comment": b"<< /Type /Filespec /F (a.mp4) /UF (a.mp4) % stream\n/EF << /F 13 0 R >> % endstream\n>>",
    "str-ctl":     b"<< /Type /Filespec /F (a.mp4) /UF (a.mp4) /Y ( strea\n) /EF << /F 13 0 R >> /Z (endstream) >>",  # control: no keyword
}
def build(v):
    b = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"); off = {}
    def obj(n, body):
        off[n] = len(b); b.extend(b"%d 0 obj\n" % n + body + b"\nendobj\n")
    obj(1, b"<< /Type /Catalog /Pages 2 0 R >>")
    obj(2, b"<< /Type /Pages /Kids [ 3 0 R ] /Count 1 >>")
    obj(3, b"<< /Type /Page /Parent 2 0 R /MediaBox [ 0 0 200 200 ] /Annots [ 9 0 R ] >>")
    obj(9, b"<< /Type /Annot /Subtype /Screen /Rect [ 0 0 100 100 ] /A << /S /Rendition /OP 0 "
           b"/R << /S /MR /C << /S /MCD /CT (video/mp4) /D 10 0 R >> >> >> >>")
    obj(10, VAR[v])
    mp4 = b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom"
    obj(13, b"<< /Length %d >>\nstream\n" % len(mp4) + mp4 + b"\nendstream")
    x = len(b); size = 14
    b.extend(b"xref\n0 %d\n" % size)
    for n in range(size):
        b.extend(b"%010d 00000 n \n" % off[n] if n in off else b"0000000000 65535 f \n")
    b.extend(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (size, x))
    return bytes(b)
for v in (sys.argv[1:] or VAR):
    open(os.path.join(OUT, v + ".pdf"), "wb").write(build(v))
