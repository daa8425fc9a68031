#!/usr/bin/env python3
"""Review 29: a javascript: link whose hex string holds bytes that are no
hex digit.

pdf.js (Lexer.getHexString) and MuPDF (lex_hex_string) skip any byte of a
hex string that is neither a hex digit, white space nor ">" (with a
warning); the check's URI scan gives the string up at the first such byte
("<<", or no hex string) and, since that byte is no "(" or "<", never
reads it again.

  uri-hexjunk      /URI <6A61766173637269 x 70743A...>: one "x"
  uri-hexjunk-lead /URI <x6A617661...>: junk before the first digit
  uri-hexjunk-all  a junk byte between every digit pair ("6A.61.76...")
  uri-hexjunk-cmt  junk that looks like a comment: <6A61%76...> (no
                   comment inside a hex string)
  uri-hexjunk-gt   ")" as the junk byte
  uri-hexjunk-lt   "<" as the junk byte: <6A61<7661...> (a string read
                   from that "<" decodes "va..." and is given up)
  uri-hexjunk-par  "(" as the junk byte, after a comment ending in "(":
                   %(<LF><6A61(7661...>
  uri-hexjunk-ctl  control: no junk (refused)
"""
import os, sys
OUT = os.environ.get("OUT", os.path.dirname(os.path.abspath(__file__)))

JS = b"javascript:app.alert('PWNED by URI')"

def uri(v):
    h = JS.hex().encode()
    if v == "uri-hexjunk":
        return b"<" + h[:16] + b" x " + h[16:] + b">"
    if v == "uri-hexjunk-lead":
        return b"<x" + h + b">"
    if v == "uri-hexjunk-all":
        return b"<" + b".".join(h[i:i+2] for i in range(0, len(h), 2)) + b">"
    if v == "uri-hexjunk-cmt":
        return b"<" + h[:4] + b"%" + h[4:] + b">"
    if v == "uri-hexjunk-lt":
        return b"<" + h[:4] + b"<" + h[4:] + b">"
    if v == "uri-hexjunk-par":
        return b"%(\n<" + h[:4] + b"(" + h[4:] + b">"
    if v == "uri-hexjunk-gt":
        return b"<" + h[:4] + b")" + h[4:] + b">"
    return b"<" + h + b">"

def build(v):
    b = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offs = {}
    def obj(n, body):
        offs[n] = len(b); b.extend(b"%d 0 obj\n" % n + body + b"\nendobj\n")
    obj(1, b"<< /Type /Catalog /Pages 2 0 R >>")
    obj(2, b"<< /Type /Pages /Count 1 /Kids [ 3 0 R ] >>")
    obj(3, b"<< /Type /Page /Parent 2 0 R /MediaBox [ 0 0 300 200 ] /Annots [ 4 0 R ] >>")
    obj(4, b"<< /Type /Annot /Subtype /Link /Rect [ 20 20 280 180 ] /Border [ 0 0 1 ] /A << /S /URI /URI " + uri(v) + b" >> >>")
    x = len(b)
    b += b"xref\n0 5\n0000000000 65535 f \n"
    for n in range(1, 5):
        b += b"%010d 00000 n \n" % offs[n]
    b += b"trailer\n<< /Size 5 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % x
    return bytes(b)

ALL = ["uri-hexjunk", "uri-hexjunk-lead", "uri-hexjunk-all", "uri-hexjunk-cmt", "uri-hexjunk-gt", "uri-hexjunk-lt", "uri-hexjunk-par", "uri-hexjunk-ctl"]
for v in (sys.argv[1:] or ALL):
    open(os.path.join(OUT, v + ".pdf"), "wb").write(build(v)); print(v)
