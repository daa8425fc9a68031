#!/usr/bin/env python3
"""Review 27 (the twenty-first session), candidates ruled out -> ./neg-<variant>.pdf
Each carries a file's bytes (13 0 R, an MP4 stub) reachable only through keys
that are NOT on the check's list; none of pdf.js 6.5, MuPDF 1.21, qpdf 11.3
exposes them (run through the harness: readersFind).
  af-doc      catalog /AF [ Filespec /F (a.mp4) /UF (a.mp4) /F-> no /EF, file as
              /DOS 13 0 R ] (PDF 2.0 associated file, stream under a platform key)
  fs-fstream  Link /A << /S /GoToR /F << /Type /Filespec /F 13 0 R >> >>:
              a file specification whose /F is the stream itself
  rf-only     Filespec with /RF << /F [ (a.mp4) 13 0 R ] >> and no /EF, in /AF
  coll        /Collection << /Type /Collection /D (a.mp4) >> with no name tree
  gotoe       Link /A << /S /GoToE /T << /R /C /N (a.mp4) >> >>, no EmbeddedFiles
  movie       /Subtype /Movie /Movie << /F << /Type /Filespec /F (a.mp4) /DOS 13 0 R >> >>
              and a page /AA /O << /S /Movie /Annotation 9 0 R /Operation /Play >>
  trans-aa    Widget /A << /S /ImportData /F (a.fdf) >> and /S /SubmitForm
  mcs         Screen with a rendition named by reference, S written /Rendition
              spelled as a string (S (Rendition)): pdf.js needs a Name
"""
import os, sys
OUT = os.path.dirname(os.path.abspath(__file__))

MP4 = b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom"

class PDF:
    def __init__(self):
        self.b = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"); self.off = {}
    def obj(self, n, body):
        self.off[n] = len(self.b); self.b += b"%d 0 obj\n" % n + body + b"\nendobj\n"
    def finish(self, size):
        b = self.b; x = len(b)
        b += b"xref\n0 %d\n" % size
        for n in range(size):
            b += (b"%010d 00000 n \n" % self.off[n]) if n in self.off else b"0000000000 65535 f \n"
        b += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (size, x)
        return bytes(b)

def build(v):
    p = PDF()
    cat = b"<< /Type /Catalog /Pages 2 0 R "
    annot = None; pageaa = b""
    if v == "af-doc":
        cat += b"/AF [ << /Type /Filespec /F (a.mp4) /UF (a.mp4) /AFRelationship /Data /DOS 13 0 R >> ] "
    elif v == "rf-only":
        cat += b"/AF [ << /Type /Filespec /F (a.mp4) /UF (a.mp4) /RF << /F [ (a.mp4) 13 0 R ] >> >> ] "
    elif v == "coll":
        cat += b"/Collection << /Type /Collection /D (a.mp4) /View /D >> /PageMode /UseAttachments "
    elif v == "fs-fstream":
        annot = b"<< /Type /Annot /Subtype /Link /Rect [ 0 0 100 100 ] /A << /S /GoToR /D [ 0 /Fit ] /F << /Type /Filespec /F 13 0 R /UF 13 0 R >> >> >>"
    elif v == "gotoe":
        annot = b"<< /Type /Annot /Subtype /Link /Rect [ 0 0 100 100 ] /A << /S /GoToE /T << /R /C /N (a.mp4) >> /D [ 0 /Fit ] >> >>"
    elif v == "movie":
        annot = b"<< /Type /Annot /Subtype /Movie /Rect [ 0 0 100 100 ] /Movie << /F << /Type /Filespec /F (a.mp4) /DOS 13 0 R >> >> /A true >>"
        pageaa = b"/AA << /O << /S /Movie /Annotation 9 0 R /Operation /Play >> >> "
    elif v == "trans-aa":
        annot = b"<< /Type /Annot /Subtype /Widget /FT /Btn /Ff 65536 /T (b) /Rect [ 0 0 100 100 ] /A << /S /ImportData /F (a.fdf) /Next << /S /SubmitForm /F << /FS /URL /F (http://example.invalid/x) >> >> >> >>"
    elif v == "mcs":
        annot = b"<< /Type /Annot /Subtype /Screen /Rect [ 0 0 100 100 ] /A << /S (Rendition) /OP 0 /R << /S /MR /C << /S /MCD /CT (video/mp4) /N (a.mp4) /D 13 0 R >> >> >> >>"
    p.obj(1, cat + b">>")
    p.obj(2, b"<< /Type /Pages /Count 1 /Kids [ 3 0 R ] >>")
    p.obj(3, b"<< /Type /Page /Parent 2 0 R /MediaBox [ 0 0 200 200 ] " + pageaa + (b"/Annots [ 9 0 R ] " if annot else b"") + b">>")
    if annot:
        p.obj(9, annot)
    p.obj(13, b"<< /Length %d >>\nstream\n" % len(MP4) + MP4 + b"\nendstream")
    return p.finish(14)

V = ["af-doc", "rf-only", "coll", "fs-fstream", "gotoe", "movie", "trans-aa", "mcs"]
for v in (sys.argv[1:] or V):
    open(os.path.join(OUT, "neg-" + v + ".pdf"), "wb").write(build(v)); print(v)
