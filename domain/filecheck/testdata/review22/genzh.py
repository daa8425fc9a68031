#!/usr/bin/env python3
"""Claim (1) check: a raw object stream (no /Filter, so every reader reads
it as it is) whose data opens with each valid zlib header (FDICT clear),
then " 10 0 " pairs and a member with /EF. If any reader finds /EF, zlib
data can be read as an object stream's header. Writes /tmp/rev22/zh/."""
import struct, os
PAYLOAD = b"<< /Type /Filespec /F (a.mp4) /UF (a.mp4) /EF << /F 13 0 R >> >>"
def build(a, b, n):
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"); off = {}
    def obj(num, body):
        off[num] = len(out); out.extend(b"%d 0 obj\n" % num + body + b"\nendobj\n")
    obj(1, b"<< /Type /Catalog /Pages 2 0 R >>")
    obj(2, b"<< /Type /Pages /Kids [ 3 0 R ] /Count 1 >>")
    obj(3, b"<< /Type /Page /Parent 2 0 R /MediaBox [ 0 0 200 200 ] /Annots [ 9 0 R ] >>")
    hdr = bytes([a, b]) + b" 10 0 10 0 10 0 "
    data = hdr + PAYLOAD
    obj(4, b"<< /Type /ObjStm /N %d /First %d /Length %d >>\nstream\n" % (n, len(hdr), len(data)) + data + b"\nendstream")
    obj(9, b"<< /Type /Annot /Subtype /Screen /Rect [ 0 0 100 100 ] /A << /S /Rendition /OP 0 "
           b"/R << /S /MR /C << /S /MCD /CT (video/mp4) /D 10 0 R >> >> >> >>")
    mp4 = b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom"
    obj(13, b"<< /Length %d >>\nstream\n" % len(mp4) + mp4 + b"\nendstream")
    size = 15; off[14] = len(out); rows = bytearray()
    for k in range(size):
        if k == 10: rows += struct.pack(">BIH", 2, 4, n - 1)
        elif k in off: rows += struct.pack(">BIH", 1, off[k], 0)
        else: rows += struct.pack(">BIH", 0, 0, 65535 if k == 0 else 0)
    out.extend(b"14 0 obj\n<< /Type /XRef /Size %d /W [ 1 4 2 ] /Root 1 0 R /Length %d >>\nstream\n" % (size, len(rows)))
    out.extend(rows + b"\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n" % off[14])
    return bytes(out)
os.makedirs("/tmp/rev22/zh", exist_ok=True)
for a in range(8, 0x80, 16):
    for b in range(256):
        if (a * 256 + b) % 31 == 0 and not b & 0x20:
            for n in (1, 2):
                open("/tmp/rev22/zh/%02x%02x-n%d.pdf" % (a, b, n), "wb").write(build(a, b, n))
# control: a digit pair instead of a header
for n in (1, 2):
    open("/tmp/rev22/zh/ctl-n%d.pdf" % n, "wb").write(build(ord(" "), ord(" "), n))
