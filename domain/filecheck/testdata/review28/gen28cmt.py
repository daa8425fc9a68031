#!/usr/bin/env python3
"""Review 28: a javascript: link the URI scan does not read.

pdfURIScan starts a string at every "(" or "<", comments included, and
skips white space before a string's first character.  A comment that ends
with "(" (or "<") just before the real string makes the scan take the
real "(" as a nested parenthesis (or an invalid hex digit), which ends the
scan of that string: "javascript:..." is never read as a string's start.
Every reader skips the comment and reads the string.

  uri-cmt-paren  /A << /S /URI /URI %(<LF>(javascript:app.alert\\(1\\)) >>
  uri-cmt-lt     /A << /S /URI /URI %<<LF>(javascript:...) >>
  uri-cmt-vb     "%(" then (vbscript:msgbox\\(1\\))
  uri-cmt-u16    "%(<FE FF 00><LF>": the scan reads a UTF-16 string whose
                 next character's high byte is the real "(" (and its low
                 byte the "j"), then gives up on the "j"
  uri-cmt-objstm the link in a compressed object stream (xref stream file)
  uri-cmt-ctl    control: no comment (refused)
"""
import os, sys
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))

def build(v):
    uri = b"(vbscript:msgbox\\(1\\))" if v == "uri-cmt-vb" else b"(javascript:app.alert\\('PWNED by URI'\\))"
    pre = {"uri-cmt-paren": b"%(\n", "uri-cmt-lt": b"%<\n", "uri-cmt-vb": b"%(\n", "uri-cmt-u16": b"%(\xfe\xff\x00\n", "uri-cmt-ctl": b""}[v]
    b = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offs = {}
    def obj(n, body):
        offs[n] = len(b); b.extend(b"%d 0 obj\n" % n + body + b"\nendobj\n")
    obj(1, b"<< /Type /Catalog /Pages 2 0 R >>")
    obj(2, b"<< /Type /Pages /Count 1 /Kids [ 3 0 R ] >>")
    obj(3, b"<< /Type /Page /Parent 2 0 R /MediaBox [ 0 0 300 200 ] /Annots [ 4 0 R ] >>")
    obj(4, b"<< /Type /Annot /Subtype /Link /Rect [ 20 20 280 180 ] /Border [ 0 0 1 ] /A << /S /URI /URI " + pre + uri + b" >> >>")
    x = len(b)
    b += b"xref\n0 5\n0000000000 65535 f \n"
    for n in range(1, 5):
        b += b"%010d 00000 n \n" % offs[n]
    b += b"trailer\n<< /Size 5 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % x
    return bytes(b)


# uri-cmt-objstm: the link annotation inside a compressed object stream
# (xref stream file), its /URI after "%(<LF>": the inflated data is read by
# the same scan.
import zlib
def build_objstm():
    uri = b"(javascript:app.alert\\('PWNED by URI'\\))"
    objs = {
        4: b"<< /Type /Annot /Subtype /Link /Rect [ 20 20 280 180 ] /Border [ 0 0 1 ] /A << /S /URI /URI %(\n" + uri + b" >> >>",
    }
    hdr = b""; body = b""
    for n, o in objs.items():
        hdr += b"%d %d " % (n, len(body)); body += o + b"\n"
    raw = hdr + body
    comp = zlib.compress(raw)
    b = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offs = {}
    def obj(n, body):
        offs[n] = len(b); b.extend(b"%d 0 obj\n" % n + body + b"\nendobj\n")
    obj(1, b"<< /Type /Catalog /Pages 2 0 R >>")
    obj(2, b"<< /Type /Pages /Count 1 /Kids [ 3 0 R ] >>")
    obj(3, b"<< /Type /Page /Parent 2 0 R /MediaBox [ 0 0 300 200 ] /Annots [ 4 0 R ] >>")
    obj(5, b"<< /Type /ObjStm /N 1 /First %d /Filter /FlateDecode /Length %d >>\nstream\n" % (len(hdr), len(comp)) + comp + b"\nendstream")
    offs[6] = len(b)
    rows = [(0, 0, 65535), (1, offs[1], 0), (1, offs[2], 0), (1, offs[3], 0), (2, 5, 0), (1, offs[5], 0), (1, offs[6], 0)]
    data = b"".join(bytes([t]) + f.to_bytes(4, "big") + g.to_bytes(2, "big") for t, f, g in rows)
    b += b"6 0 obj\n<< /Type /XRef /Size 7 /W [ 1 4 2 ] /Root 1 0 R /Length %d >>\nstream\n" % len(data) + data + b"\nendstream\nendobj\n"
    b += b"startxref\n%d\n%%%%EOF\n" % offs[6]
    return bytes(b)
V = ["uri-cmt-paren", "uri-cmt-lt", "uri-cmt-vb", "uri-cmt-u16", "uri-cmt-objstm", "uri-cmt-ctl"]
for v in (sys.argv[2:] or V):
    open(os.path.join(OUT, v + ".pdf"), "wb").write(build_objstm() if v == "uri-cmt-objstm" else build(v)); print(v)
