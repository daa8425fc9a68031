"""Sends a report body of SIZE bytes to URL with Python's urllib or httpx
(LIB), as a partner's client would: the whole body first, then the
answer. Prints the status and the problem body as JSON, or fails with the
client's error (a reset or broken pipe, when the server closed before the
client had sent its body)."""
import json
import sys
import urllib.error
import urllib.request

url, lib, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
body = b'{"x":"' + b"a" * (size - 8) + b'"}'
headers = {"Authorization": "Bearer good", "Content-Type": "application/json"}
if lib == "urllib":
    req = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            status, text, ctype = resp.status, resp.read(), resp.headers["Content-Type"]
    except urllib.error.HTTPError as e:
        status, text, ctype = e.code, e.read(), e.headers["Content-Type"]
else:
    import httpx

    resp = httpx.post(url, content=body, headers=headers, timeout=60)
    status, text, ctype = resp.status_code, resp.content, resp.headers["content-type"]
print(json.dumps({"status": status, "content_type": ctype, "body": json.loads(text)}))
