#!/usr/bin/env python3
"""Review 24c (exploratory): no object is defined in data, only a trailer.
Stream 5's data (no filter) holds "trailer << /Root << direct catalog, pages,
page, Screen annotation, Filespec with /EF >> >>"; the file has no xref and
no startxref, so pdf.js rebuilds (indexObjects) and takes that trailer.
trl-data: the trailer in data; trl-bare: the data opened by a bare "stream" keyword between objects (pdf.js's
rebuild, which skips an object's content, sees the trailer); trl-ctl: the same trailer at the top level."""
import os, sys
OUT = "/tmp/rev24/pdfs"
MP4 = b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom"
TRL = (b"trailer\n<< /Size 14 /Root << /Type /Catalog /Pages << /Type /Pages /Count 1 /Kids [ << /Type /Page "
       b"/MediaBox [ 0 0 200 200 ] /Annots [ << /Type /Annot /Subtype /Screen /Rect [ 0 0 100 100 ] /A << /S /Rendition /OP 0 "
       b"/R << /S /MR /C << /S /MCD /CT (video/mp4) /D << /Type /Filespec /F (a.mp4) /UF (a.mp4) /EF << /F 13 0 R >> >> >> >> >> >> ] >> ] >> >> >>\n")
def build(v):
    b = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    b += b"13 0 obj\n<< /Length %d >>\nstream\n" % len(MP4) + MP4 + b"\nendstream\nendobj\n"
    if v == "trl-data":
        data = b"%% bytes\n" + TRL + b"%% more\n"
        b += b"5 0 obj\n<< /Length %d >>\nstream\n" % len(data) + data + b"\nendstream\nendobj\n"
    elif v == "trl-bare":  # data opened by a bare "stream" between objects, no object around it
        b += b"stream\n%% bytes\n" + TRL + b"%% more\nendstream\n"
    else:
        b += TRL
    b += b"%%EOF\n"
    return bytes(b)
for v in (sys.argv[1:] or ["trl-data", "trl-bare", "trl-ctl"]):
    open(os.path.join(OUT, v + ".pdf"), "wb").write(build(v)); print(v)
