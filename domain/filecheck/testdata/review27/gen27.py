#!/usr/bin/env python3
"""Review 26 (kept as review27), media with no /EF -> ./<variant>.pdf
pdf.js 6.5 (ScreenAnnotation.#findClipAsset, SoundAnnotation) plays a media
clip whose /D is a STREAM (not a file specification): no /EF, /EmbeddedFile,
/RichMedia, /JS or /JavaScript anywhere; it registers the stream as an
attachment (catalog.getAttachmentIdForAnnotation) that the viewer plays.
  med-stream   Screen /A << /S /Rendition /R << /S /MR /C << /S /MCD
               /CT (video/mp4) /N (a.mp4) /D 13 0 R >> >> >>, 13 = MP4 bytes
  med-subtype  the same without /CT: content type from the stream's
               /Subtype /video#2Fmp4
  med-aa       the rendition under /AA << /PO ... >> instead of /A
  med-flate    med-stream with the MP4 FlateDecode-compressed
  snd          a Sound annotation /Sound 13 0 R, 13 = raw 8-bit samples
               (/R 8000): played as audio/wav
"""
import os, sys, zlib
src = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "review25", "gen25.py")).read()
src = src[:src.index("\nB = {")]
src = src.replace('OUT = "/tmp/rev25/pdfs"', 'OUT = "/tmp/rev27/pdfs"')
exec(compile(src, "gen25", "exec"))

def rend(clip):
    return b"<< /S /Rendition /OP 0 /R << /S /MR /C << /S /MCD " + clip + b" >> >> >>"

def build(v):
    p = PDF()
    page_objs(p)
    clip = b"/N (a.mp4) /D 13 0 R" if v == "med-subtype" else b"/CT (video/mp4) /N (a.mp4) /D 13 0 R"
    if v == "snd":
        p.obj(9, b"<< /Type /Annot /Subtype /Sound /Rect [ 0 0 100 100 ] /Sound 13 0 R >>")
        pcm = bytes((128 + (i % 32) * 4) & 255 for i in range(800))
        p.obj(13, b"<< /Type /Sound /R 8000 /C 1 /B 8 /E /Raw /Length %d >>\nstream\n" % len(pcm) + pcm + b"\nendstream")
        return p.finish("table", 14)
    act = (b"/AA << /PO " + rend(clip) + b" >>") if v == "med-aa" else (b"/A " + rend(clip))
    p.obj(9, b"<< /Type /Annot /Subtype /Screen /Rect [ 0 0 100 100 ] " + act + b" >>")
    sub = b"/Subtype /video#2Fmp4 " if v == "med-subtype" else b""
    if v == "med-flate":
        z = zlib.compress(MP4)
        p.obj(13, b"<< /Filter /FlateDecode /Length %d >>\nstream\n" % len(z) + z + b"\nendstream")
    else:
        p.obj(13, b"<< " + sub + b"/Length %d >>\nstream\n" % len(MP4) + MP4 + b"\nendstream")
    return p.finish("table", 14)

V = ["med-stream", "med-subtype", "med-aa", "med-flate", "snd"]
for v in (sys.argv[1:] or V):
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), v + ".pdf"), "wb") as fh:
        fh.write(build(v))
    print(v)
