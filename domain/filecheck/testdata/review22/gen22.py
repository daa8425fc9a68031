#!/usr/bin/env python3
"""Review 22 generator. Object 10 (a file specification with /EF, shown by
the Screen annotation 9) sits in object stream 4, in bytes the check never
scans as names:
  br-*  : /Filter [/FlateDecode /BrotliDecode]: the check inflates and scans
          brotli bytes; pdf.js (6.5) inflates, then un-brotlis.
  ahx-*, a85-*: the check's textFlate path (one AHx/A85 name, then one
          FlateDecode name anywhere) decodes, then inflates; the viewer's
          /Filter (or pdf.js's /F) is the ASCII filter alone. Decoded data is
          a final stored deflate block "10%"+NLEN+LEN bytes (what the check
          inflates and scans) followed by the member, which the check's
          inflater never reaches (trailing bytes after the final block).
Writes /tmp/rev22/pdfs/<variant>.pdf."""
import base64, os, struct, subprocess, sys, zlib

OUT = "/tmp/rev22/pdfs"
os.makedirs(OUT, exist_ok=True)
PAYLOAD = b"<< /Type /Filespec /F (a.mp4) /UF (a.mp4) /EF << /F 13 0 R >> >>"

def brotli(b):
    return subprocess.run(["node", "-e", "process.stdout.write(require('zlib').brotliCompressSync(require('fs').readFileSync(0)))"],
                          input=b, capture_output=True, check=True).stdout

def a85(b):
    return base64.a85encode(b) + b"~>"

def stored_trick():
    # "10%": LEN = '0','%'; both lexers read 10, then a comment over NLEN to
    # the LF that opens the literal bytes, then the member's offset.
    LEN = ord("0") | ord("%") << 8
    head = b"10%" + struct.pack("<H", LEN ^ 0xFFFF)
    off10 = len(head) + LEN          # /First 0: the member right after the block
    body = b"\n%d" % off10
    data = head + body + b" " * (LEN - len(body))
    assert zlib.decompressobj(-15).decompress(data) == data[5:]
    return data + PAYLOAD + b"\n"

VAR = {
    # name: (dict extra, data builder)
    "br-arr":    (b"/Filter [ /FlateDecode /BrotliDecode ] ", "br"),
    "ahx-cmt":   (b"/Filter /ASCIIHexDecode %/FlateDecode\n", "ahx"),
    "ahx-foo":   (b"/Filter /AHx /Foo /FlateDecode ", "ahx"),
    "ahx-f":     (b"/F /AHx /Filter /FlateDecode ", "ahx"),       # pdf.js reads /F first
    "a85-cmt":   (b"/Filter /ASCII85Decode %/FlateDecode\n", "a85"),
    "none":      (b"/Filter [ /FlateDecode /BrotliDecode ] ", "br"),   # control: object 10 not in the xref
    "ahx-ctl":   (b"/Filter [ /AHx /FlateDecode ] ", "ahxz"),     # control: a real AHx+Flate stream
}

def build(variant):
    extra, kind = VAR[variant]
    b = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    off, comp = {}, {}
    def obj(num, body):
        off[num] = len(b)
        b.extend(b"%d 0 obj\n" % num + body + b"\nendobj\n")
    obj(1, b"<< /Type /Catalog /Pages 2 0 R >>")
    obj(2, b"<< /Type /Pages /Kids [ 3 0 R ] /Count 1 >>")
    obj(3, b"<< /Type /Page /Parent 2 0 R /MediaBox [ 0 0 200 200 ] /Annots [ 9 0 R ] >>")
    if kind == "br":
        hdr = b"10 0 "
        # padding that brotli codes as a copy, so that no literal run of
        # the member is stored as it is
        pad = b"% " + b"abcd" * 200 + b"\n"
        data = zlib.compress(brotli(hdr + pad + PAYLOAD + b"\n" + pad))
        first = len(hdr)
    elif kind == "ahxz":
        hdr = b"10 0 "
        data = zlib.compress(hdr + PAYLOAD).hex().encode() + b">"
        first = len(hdr)
    else:
        dec = stored_trick()
        data = dec.hex().encode() + b">" if kind == "ahx" else a85(dec)
        first = 0
    d = b"<< /Type /ObjStm /N 1 /First %d /Length %d %s>>" % (first, len(data), extra)
    obj(4, d + b"\nstream\n" + data + b"\nendstream")
    if variant != "none":
        comp[10] = (4, 0)
    obj(9, b"<< /Type /Annot /Subtype /Screen /Rect [ 0 0 100 100 ] /A << /S /Rendition /OP 0 "
           b"/R << /S /MR /C << /S /MCD /CT (video/mp4) /D 10 0 R >> >> >> >>")
    mp4 = b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom"
    obj(13, b"<< /Length %d >>\nstream\n" % len(mp4) + mp4 + b"\nendstream")
    size = 15
    off[14] = len(b)
    rows = bytearray()
    for n in range(size):
        if n in comp:
            rows += struct.pack(">BIH", 2, comp[n][0], comp[n][1])
        elif n in off:
            rows += struct.pack(">BIH", 1, off[n], 0)
        else:
            rows += struct.pack(">BIH", 0, 0, 65535 if n == 0 else 0)
    b.extend(b"14 0 obj\n<< /Type /XRef /Size %d /W [ 1 4 2 ] /Root 1 0 R /Length %d >>\nstream\n" % (size, len(rows)))
    b.extend(rows + b"\nendstream\nendobj\n")
    b.extend(b"startxref\n%d\n%%%%EOF\n" % off[14])
    return bytes(b)

for v in (sys.argv[1:] or VAR):
    with open(os.path.join(OUT, v + ".pdf"), "wb") as f:
        f.write(build(v))
