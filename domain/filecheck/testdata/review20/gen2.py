import struct, zlib
def build(hdr7):
    b = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    off, comp = {}, {}
    def obj(n, body):
        off[n] = len(b); b.extend(b"%d 0 obj\n" % n + body + b"\nendobj\n")
    obj(1, b"<< /Type /Catalog /Pages 2 0 R /OpenAction 10 0 R >>")
    obj(2, b"<< /Type /Pages /Kids [ 3 0 R ] /Count 1 >>")
    obj(3, b"<< /Type /Page /Parent 2 0 R /MediaBox [ 0 0 200 200 ] >>")
    inner = b"10 0 << /S /JavaScript /JS (app.alert\\(1\\)) >>"
    data = zlib.compress(zlib.compress(inner))
    obj(4, b"<< /Type /ObjStm /N 1 /First 5 /Filter 7 0 R /Length %d >>\nstream\n" % len(data) + data + b"\nendstream")
    comp[10] = (4, 0)
    off[7] = len(b)
    b.extend(hdr7 + b"\n[ /FlateDecode /FlateDecode ]\nendobj\n")
    size = 12
    off[11] = len(b)
    rows = bytearray()
    for n in range(size):
        if n in comp: rows += struct.pack(">BIH", 2, comp[n][0], comp[n][1])
        elif n in off: rows += struct.pack(">BIH", 1, off[n], 0)
        else: rows += struct.pack(">BIH", 0, 0, 65535 if n == 0 else 0)
    b.extend(b"11 0 obj\n<< /Type /XRef /Size %d /W [ 1 4 2 ] /Root 1 0 R /Length %d >>\nstream\n" % (size, len(rows)) + rows + b"\nendstream\nendobj\n")
    b.extend(b"startxref\n%d\n%%%%EOF\n" % off[11])
    return bytes(b)
import os
os.makedirs("/tmp/rev20/pdfs2", exist_ok=True)
for tag, h in [("filter-plain", b"7 0 obj"), ("filter-sign", b"+7 0obj"), ("filter-zeros", b"000000000007 0obj")]:
    open("/tmp/rev20/pdfs2/%s.pdf" % tag, "wb").write(build(h))
