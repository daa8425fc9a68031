#!/usr/bin/env python3
"""Review 25 generator -> /tmp/rev25/pdfs/<variant>.pdf  (template: /tmp/rev24/gen/gen24.py)

deep-kw   object 10 (Filespec, /EF to 13) is
            << /Type /Filespec ... /A << /A << ... (64 nested dicts: depth 65) ]
               >> x64 stream\n/EF << /F 13 0 R >> endstream\n>>
          pdfSyntax records container kinds for depths 1..64 only; the "]" at
          depth 65 closes a dictionary unchecked (no odd), so its depth is one
          less than pdf.js's (which skips "]" as a malformed key). After the 64
          ">>" it is at the top level, right after ">>": data starts, /EF is
          exempt. pdf.js: still inside object 10's dictionary, skips the key
          "stream" and reads /EF.
deep-ctl  the same with 63 nested dicts (depth 64, all checked): odd, refused.
deep-n    MuPDF object stream by /N alone (no /Type, no /First): the same
          trick before /N puts the check at depth 0 there, so /N is "nested"
          (not the stream's own) and the data is not inflated. Members:
          10 JavaScript OpenAction, 11 Filespec /EF. xref stream type 2.
deep-n-ctl the same with 63 nested dicts.
ref-objstm "5 0 obj 6 0 R stream<LF>zlib...endstream": the stream's
          dictionary is a reference (6 0 obj << /Type /ObjStm /N 2 /First F
          /Filter /FlateDecode /Length L >>); MuPDF notes stream data after
          any object and resolves /N /First /Filter through the reference.
ref-ctl   5 0 obj << ...direct... >> stream (must be refused).
trl-dct   review24's trl-data with the trailer inside a /DCTDecode image's data
          (data that is never searched as text).
fp-unbal  false-refusal probe: a harmless file whose Info dictionary lacks a "]"
          (/Keywords [ (a) (b) >>), then an ICC stream (/N 3, Flate) and a DCT
          image: the syntax never returns to depth 0, so no data starts, the
          ICC /N makes the carried dictionary an object stream, and the image
          is pseudo data of an "object stream" with DCTDecode.
val-gt    pdf.js takes ">>" in a value's place as the value (Parser.getObj returns
          the Cmd): "/Z >> stream<LF>/EF << ... >> endstream >>" closes the
          dictionary for the check (top level, after ">>": data, /EF exempt) but
          not for pdf.js, which skips "stream" as a key and reads /EF.
val-gt-dct the same with /Filter /DCTDecode (data never searched as text).
val-gt-cmt "/Z >>\n%c\nstream": a comment between (check: no data: refused).
fp-cmt    ">>\n%c\nstream" on a plain Flate content stream (comment between).
"""
import os, struct, sys, zlib
sys.path.insert(0, "/tmp/rev24/gen")
OUT = "/tmp/rev25/pdfs"
os.makedirs(OUT, exist_ok=True)
MP4 = b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom"
SCREEN = (b"<< /Type /Annot /Subtype /Screen /Rect [ 0 0 100 100 ] /A << /S /Rendition /OP 0 "
          b"/R << /S /MR /C << /S /MCD /CT (video/mp4) /D 10 0 R >> >> >> >>")


class PDF:
    def __init__(self):
        self.b = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
        self.off, self.cmp = {}, {}

    def obj(self, n, body):
        self.off[n] = len(self.b)
        self.b.extend(b"%d 0 obj\n" % n + body + b"\nendobj\n")

    def finish(self, xk, size, root=b"/Root 1 0 R", info=b""):
        b = self.b
        if xk == "table":
            x = len(b)
            b.extend(b"xref\n0 %d\n" % size)
            for n in range(size):
                b.extend(b"%010d 00000 n \n" % self.off[n] if n in self.off else b"0000000000 65535 f \n")
            b.extend(b"trailer\n<< /Size %d %s %s>>\nstartxref\n%d\n%%%%EOF\n" % (size, root, info, x))
        else:
            xn = size - 1
            self.off[xn] = len(b)
            rows = bytearray()
            for n in range(size):
                if n in self.off:
                    rows += struct.pack(">BIH", 1, self.off[n], 0)
                elif n in self.cmp:
                    rows += struct.pack(">BIH", 2, self.cmp[n][0], self.cmp[n][1])
                else:
                    rows += struct.pack(">BIH", 0, 0, 65535 if n == 0 else 0)
            b.extend(b"%d 0 obj\n<< /Type /XRef /Size %d /W [ 1 4 2 ] %s /Length %d >>\nstream\n" % (xn, size, root, len(rows)))
            b.extend(rows + b"\nendstream\nendobj\n")
            b.extend(b"startxref\n%d\n%%%%EOF\n" % self.off[xn])
        return bytes(b)


def page_objs(p, annot=True, openaction=b"", contents=b""):
    p.obj(1, b"<< /Type /Catalog /Pages 2 0 R %s>>" % openaction)
    p.obj(2, b"<< /Type /Pages /Kids [ 3 0 R ] /Count 1 >>")
    p.obj(3, b"<< /Type /Page /Parent 2 0 R /MediaBox [ 0 0 200 200 ] %s%s>>" % (b"/Annots [ 9 0 R ] " if annot else b"", contents))


def deep(n, closer=b"]"):
    return b"/A << " * n + closer + b" " + b">> " * n


def build_deep(v):
    n = 63 if v.endswith("ctl") else 64
    p = PDF()
    page_objs(p)
    p.obj(9, SCREEN)
    p.obj(10, b"<< /Type /Filespec /F (a.mp4) /UF (a.mp4) " + deep(n) + b"stream\n/EF << /F 13 0 R >> endstream\n>>")
    p.obj(13, b"<< /Length %d >>\nstream\n" % len(MP4) + MP4 + b"\nendstream")
    return p.finish("table", 14)


def members_objstm(first):
    members = [(10, b"<< /S /JavaScript /JS (app.alert\\(1\\)) >>"),
               (11, b"<< /Type /Filespec /F (a.mp4) /UF (a.mp4) /EF << /F 13 0 R >> >>")]
    hdr, body = b"", b""
    offs = []
    for i, (num, m) in enumerate(members):
        offs.append((num, len(body)))
        body += m + b"\n"
    hdr = b"".join(b"%d %d " % (num, o) for num, o in offs)
    if not first:  # /First missing = 0: offsets count from the data's start
        pad = 24
        hdr = b"".join(b"%d %d " % (num, o + pad) for num, o in offs).ljust(pad)
        assert len(hdr) == pad
    return members, hdr, body


def build_deepn(v):
    n = 63 if v.endswith("ctl") else 64
    p = PDF()
    page_objs(p, openaction=b"/OpenAction 10 0 R ")
    p.obj(9, SCREEN.replace(b"/D 10 0 R", b"/D 11 0 R"))
    members, hdr, body = members_objstm(False)
    for i, (num, _) in enumerate(members):
        p.cmp[num] = (5, i)
    z = zlib.compress(hdr + body, 9)
    p.obj(5, b"<< " + deep(n) + b"/N %d /Length %d /Filter /FlateDecode >>\nstream\n" % (len(members), len(z)) + z + b"\nendstream")
    p.obj(13, b"<< /Length %d >>\nstream\n" % len(MP4) + MP4 + b"\nendstream")
    return p.finish("xrefstm", 15)


def build_ref(v):
    p = PDF()
    page_objs(p, openaction=b"/OpenAction 10 0 R ")
    p.obj(9, SCREEN.replace(b"/D 10 0 R", b"/D 11 0 R"))
    members, hdr, body = members_objstm(True)
    for i, (num, _) in enumerate(members):
        p.cmp[num] = (5, i)
    z = zlib.compress(hdr + body, 9)
    d = b"<< /Type /ObjStm /N %d /First %d /Length %d /Filter /FlateDecode >>" % (len(members), len(hdr), len(z))
    if v == "ref-objstm":
        p.obj(6, d)
        p.obj(5, b"6 0 R stream\n" + z + b"\nendstream")
    else:
        p.obj(5, d + b"\nstream\n" + z + b"\nendstream")
    p.obj(13, b"<< /Length %d >>\nstream\n" % len(MP4) + MP4 + b"\nendstream")
    return p.finish("xrefstm", 15)


def build_trl(v):
    TRL = (b"trailer\n<< /Size 14 /Root << /Type /Catalog /Pages << /Type /Pages /Count 1 /Kids [ << /Type /Page "
           b"/MediaBox [ 0 0 200 200 ] /Annots [ << /Type /Annot /Subtype /Screen /Rect [ 0 0 100 100 ] /A << /S /Rendition /OP 0 "
           b"/R << /S /MR /C << /S /MCD /CT (video/mp4) /D << /Type /Filespec /F (a.mp4) /UF (a.mp4) /EF << /F 13 0 R >> >> >> >> >> >> ] >> ] >> >> >>\n")
    b = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    b += b"13 0 obj\n<< /Length %d >>\nstream\n" % len(MP4) + MP4 + b"\nendstream\nendobj\n"
    data = b"\xff\xd8\xff\xe0 jpeg-ish bytes\n" + TRL + b"%% more\n\xff\xd9"
    b += (b"5 0 obj\n<< /Type /XObject /Subtype /Image /Width 1 /Height 1 /ColorSpace /DeviceGray /BitsPerComponent 8 "
          b"/Filter /DCTDecode /Length %d >>\nstream\n" % len(data)) + data + b"\nendstream\nendobj\n"
    b += b"%%EOF\n"
    return bytes(b)


def jpeg1x1():
    # a minimal baseline grayscale JPEG (8x8 white), hand-built tables
    import base64
    return base64.b64decode(
        b"/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAAMCAgICAgMCAgIDAwMDBAYEBAQEBAgGBgUGCQgKCgkICQkKDA8MCgsOCwkJDRENDg8QEBEQCgwSExIQEw8QEBD/"
        b"wAALCAABAAEBAREA/8QAFAABAAAAAAAAAAAAAAAAAAAACf/EABQQAQAAAAAAAAAAAAAAAAAAAAD/2gAIAQEAAD8AKp//2Q==")


def build_fp(v):
    p = PDF()
    content = b"q 100 0 0 100 50 50 cm /Im1 Do Q BT /F1 12 Tf 10 10 Td (Hello) Tj ET"
    zc = zlib.compress(content)
    p.obj(1, b"<< /Type /Catalog /Pages 2 0 R >>")
    p.obj(2, b"<< /Type /Pages /Kids [ 3 0 R ] /Count 1 >>")
    p.obj(3, b"<< /Type /Page /Parent 2 0 R /MediaBox [ 0 0 200 200 ] /Contents 4 0 R "
             b"/Resources << /XObject << /Im1 6 0 R >> /Font << /F1 8 0 R >> >> >>")
    if v == "fp-cmt":
        p.obj(4, b"<< /Length %d /Filter /FlateDecode >>\n%%c\nstream\n" % len(zc) + zc + b"\nendstream")
    else:
        p.obj(4, b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(zc) + zc + b"\nendstream")
    p.obj(7, b"<< /Producer (x) /Keywords [ (a) (b) >>" if v == "fp-unbal" else b"<< /Producer (x) /Keywords [ (a) (b) ] >>")
    icc = zlib.compress(b"\x00" * 300)
    p.obj(5, b"<< /N 1 /Alternate /DeviceGray /Length %d /Filter /FlateDecode >>\nstream\n" % len(icc) + icc + b"\nendstream")
    jp = jpeg1x1()
    p.obj(6, b"<< /Type /XObject /Subtype /Image /Width 1 /Height 1 /ColorSpace /DeviceGray /BitsPerComponent 8 "
             b"/Filter /DCTDecode /Length %d >>\nstream\n" % len(jp) + jp + b"\nendstream")
    p.obj(8, b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    return p.finish("table", 9, info=b"/Info 7 0 R ")


def build_val(v):
    extra = {"val-gt": b"", "val-gt-dct": b"/Filter /DCTDecode ", "val-gt-cmt": b""}[v]
    tail = b"/Z >>\n%c\nstream\n" if v == "val-gt-cmt" else b"/Z >> stream\n"
    p = PDF()
    page_objs(p)
    p.obj(9, SCREEN)
    p.obj(10, b"<< /Type /Filespec /F (a.mp4) /UF (a.mp4) " + extra + tail + b"/EF << /F 13 0 R >> endstream\n>>")
    p.obj(13, b"<< /Length %d >>\nstream\n" % len(MP4) + MP4 + b"\nendstream")
    return p.finish("table", 14)


B = {"val-gt": build_val, "val-gt-dct": build_val, "val-gt-cmt": build_val, "deep-kw": build_deep, "deep-ctl": build_deep, "deep-n": build_deepn, "deep-n-ctl": build_deepn,
     "ref-objstm": build_ref, "ref-ctl": build_ref, "trl-dct": build_trl,
     "fp-unbal": build_fp, "fp-bal": build_fp, "fp-cmt": build_fp}
for v in (sys.argv[1:] or list(B)):
    with open(os.path.join(OUT, v + ".pdf"), "wb") as fh:
        fh.write(B[v](v))
    print(v)
