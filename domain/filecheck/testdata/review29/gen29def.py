#!/usr/bin/env python3
"""Review 29: an object defined in stream data whose comment between
"N G" and "obj" ends in white space before its end of line.

pdfGapBefore walks back from obj across white space, then asks that the
white space it stopped at begin with an end of line (a comment ends
there).  A comment with a trailing space, tab, form feed or NUL before
its line break ("9 0 %c \\nobj") stops the walk at that space: gapNot, no
definition, and the /JS of object 9 in a plain stream's data is ignored.
Every reader's comment runs to the line break, the trailing white space
included: "9 0 %c <LF>obj" is "9 0 obj".

  def-trail-sp    widget /AA << /F 9 0 R >> in text; object 9
                  "<< /JS (...) >>" in stream 5's data, "9 0 %c <LF>obj"
  def-trail-ff    the same with a form feed: "9 0 %c<FF><LF>obj"
  def-trail-nul   the same with NUL: "9 0 %c<NUL><LF>obj"
  def-trail-hex   "9 0 %c <LF>ob#6A" (MuPDF; onHash asks pdfNumberBefore too)
  def-trail-ctl   control: "9 0 %c<LF>obj" (refused at HEAD)
"""
import os, sys
OUT = os.environ.get("OUT", os.path.dirname(os.path.abspath(__file__)))

JS = b"(app.alert\\('PWNED by F script'\\); event.value = 'PWNED';)"

def build(v):
    b = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offs = {}
    def obj(n, body):
        offs[n] = len(b); b.extend(b"%d 0 obj\n" % n + body + b"\nendobj\n")
    obj(1, b"<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [ 4 0 R ] /NeedAppearances true /DA (/Helv 12 Tf 0 g) "
           b"/DR << /Font << /Helv << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> >> >>")
    obj(2, b"<< /Type /Pages /Count 1 /Kids [ 3 0 R ] >>")
    obj(3, b"<< /Type /Page /Parent 2 0 R /MediaBox [ 0 0 300 200 ] /Annots [ 4 0 R ] >>")
    obj(4, b"<< /Type /Annot /Subtype /Widget /FT /Tx /T (amount) /V (100) /DA (/Helv 12 Tf 0 g) "
           b"/Rect [ 20 100 280 140 ] /F 4 /P 3 0 R /AA << /F 9 0 R >> >>")
    defn = {
        "def-trail-sp": b"9 0 %c \nobj\n",
        "def-trail-ff": b"9 0 %c\f\nobj\n",
        "def-trail-nul": b"9 0 %c\x00\nobj\n",
        "def-trail-hex": b"9 0 %c \nob#6A\n",
        "def-trail-ctl": b"9 0 %c\nobj\n",
    }[v]
    pre = b"x\n"
    data = pre + defn + b"<< /JS " + JS + b" >>" + b"\nendobj\n"
    head = b"5 0 obj\n<< /Length %d >>\nstream\n" % len(data)
    offs[5] = len(b)
    offs[9] = len(b) + len(head) + len(pre)
    b += head + data + b"\nendstream\nendobj\n"
    x = len(b)
    b += b"xref\n0 10\n0000000000 65535 f \n"
    for n in range(1, 10):
        b += b"%010d 00000 n \n" % offs[n] if n in offs else b"0000000000 65535 f \n"
    b += b"trailer\n<< /Size 10 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % x
    return bytes(b)

ALL = ["def-trail-sp", "def-trail-ff", "def-trail-nul", "def-trail-hex", "def-trail-ctl"]
for v in (sys.argv[1:] or ALL):
    open(os.path.join(OUT, v + ".pdf"), "wb").write(build(v)); print(v)
