#!/usr/bin/env python3
"""Review 26 generator -> /tmp/rev26/pdfs/<variant>.pdf
Base: review25 val-gt (pdf.js takes ">>" in a value's place as the value, so
"/Z >> stream<LF>" starts data for the check but not for pdf.js, which reads
on into the "data" as the same dictionary). Since a447a94 an /EF in data
counts when "<<" or "N G R" (numbers: sign, digits, dots) follows. Here /EF's
value is a reference written in number forms pdf.js 6.5 (Lexer.getNumber)
lexes differently:
  ef-minus   "/EF 1-2 0 R"    pdf.js ignores a minus inside a number: 12
  ef-dots    "/EF 12.0.0 R"   second dot ends the number: 12.0 then ".0" = 0
  ef-signlf  "/EF +\\n12 0 R"  sign then line breaks skipped: 12
  ef-genlf   "/EF 12 -\\n0 R"  generation "-<LF>0" = -0 (=== 0)
  ef-plus    "/EF 12+0 R"     a plus sign ends a number: 12 then +0
  ef-ctl     "/EF 12 0 R"     control: must be refused (a447a94)
  ef-dct-minus  ef-minus with /Filter /DCTDecode on the pseudo stream
Object 12 (outside data) is << /F 13 0 R >>; 13 is the MP4 stream; 9 a Screen
annotation playing filespec 10 (pdf.js reports "Screen media file a.mp4").
"""
import os, sys
sys.argv_saved = sys.argv
src = open("/work/main/domain/filecheck/testdata/review25/gen25.py").read()
src = src[:src.index("\nB = {")]          # classes/helpers only
src = src.replace('OUT = "/tmp/rev25/pdfs"', 'OUT = "/tmp/rev26/pdfs"')
exec(compile(src, "gen25", "exec"))

FORMS = {"ef-minus": b"1-2 0 R", "ef-dots": b"12.0.0 R", "ef-signlf": b"+\n12 0 R",
         "ef-genlf": b"12 -\n0 R", "ef-plus": b"12+0 R", "ef-ctl": b"12 0 R", "ef-dct-minus": b"1-2 0 R"}


def build_ef(v):
    extra = b"/Filter /DCTDecode " if "dct" in v else b""
    p = PDF()
    page_objs(p)
    p.obj(9, SCREEN)
    p.obj(10, b"<< /Type /Filespec /F (a.mp4) /UF (a.mp4) " + extra + b"/Z >> stream\n/EF " + FORMS[v] + b" endstream\n>>")
    p.obj(12, b"<< /F 13 0 R >>")
    p.obj(13, b"<< /Length %d >>\nstream\n" % len(MP4) + MP4 + b"\nendstream")
    return p.finish("table", 14)


B = {k: build_ef for k in FORMS}
for v in (sys.argv[1:] or list(B)):
    with open(os.path.join("/tmp/rev26/pdfs", v + ".pdf"), "wb") as fh:
        fh.write(B[v](v))
    print(v)
