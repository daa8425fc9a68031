#!/usr/bin/env python3
"""Review 28: an object defined in data whose comment starts before the
window (pdfGapBefore looks back within the window only: lookBehind is 32
bytes).

The check reads a PDF in 96 KiB windows that carry 32 bytes of what came
before.  pdfDefinitionAt walks back from "obj" across white space and a
comment; the comment's line is searched for its % only within the
window.  Object 9 is written in a plain stream's data as
"9 0 %<200 c><LF>obj << /JS (...) >>": every reader reads "9 0 obj" at the
offset the xref gives (the line's start).  When "obj" lies just past a
window's start (offset 98048 + a few), the window holds no % of that
line: no definition is seen, p.def stays false, and the /JS in data is
ignored.  No mid-line trick: a plain comment.

  def-win      widget /AA << /F 9 0 R >> in text; "obj" at 98050
  def-win-N    the same with "obj" at 98048 + N (argument: N)
"""
import os, sys
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
AT = 98048 + (int(sys.argv[2]) if len(sys.argv) > 2 else 2)
JS = b"(app.alert\\('PWNED by F script'\\); event.value = 'PWNED';)"

def build():
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
    defn = b"9 0 %" + b"c" * 200 + b"\n"
    tail = b"obj\n<< /JS " + JS + b" >>\nendobj\n"
    offs[5] = len(b)
    head_tmpl = b"5 0 obj\n<< /Length %07d >>\nstream\n"
    hl = len(head_tmpl % 0)
    # data = filler + defn + tail; "obj" must land at AT
    fill_len = AT - (len(b) + hl) - len(defn)
    filler = (b"x" * 63 + b"\n") * (fill_len // 64) + b"x" * (fill_len % 64)
    data = filler + defn + tail
    b += head_tmpl % len(data)
    offs[9] = len(b) + len(filler)
    b += data
    assert b[AT:AT + 3] == b"obj", b[AT - 5:AT + 5]
    b += b"\nendstream\nendobj\n"
    x = len(b)
    b += b"xref\n0 10\n0000000000 65535 f \n"
    for n in range(1, 10):
        b += b"%010d 00000 n \n" % offs[n] if n in offs else b"0000000000 65535 f \n"
    b += b"trailer\n<< /Size 10 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % x
    return bytes(b)

name = "def-win" if len(sys.argv) <= 2 else "def-win-%s" % sys.argv[2]
open(os.path.join(OUT, name + ".pdf"), "wb").write(build()); print(name)
