"""Reconcile a month's money: the service's CSV export against your ledger.

BASE_URL, TOKEN (a Bearer token from POST /v1/token), MONTH (YYYY-MM, UTC)
and LEDGER (your CSV: numero_credito,monto_aprobado) from the environment.
Python 3.9+, standard library only. Exit 0 when every report matches.
"""
import csv
import io
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from decimal import Decimal

base, token, month = os.environ["BASE_URL"], os.environ["TOKEN"], os.environ["MONTH"]
year, mon = map(int, month.split("-"))
after = f"{year + mon // 12:04d}-{mon % 12 + 1:02d}-01"
query = {"received_from": f"{month}-01", "received_to": after, "limit": "100"}

served = {}  # numero_credito -> Decimal(Monto Aprobado), as the service stored it
cursor = None
while True:
    q = dict(query, **({"cursor": cursor} if cursor else {}))
    req = urllib.request.Request(f"{base}/v1/reports?{urllib.parse.urlencode(q)}",
                                 headers={"Authorization": f"Bearer {token}", "Accept": "text/csv"})
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            body = resp.read().decode("utf-8")
            cursor = resp.headers.get("Next-Cursor")
    except urllib.error.HTTPError as e:
        if e.code in (429, 503):  # slow_down or overloaded: wait as told
            time.sleep(int(e.headers.get("Retry-After", "1")))
            continue
        raise
    for row in csv.DictReader(io.StringIO(body, newline="")):
        served[row["Número de Crédito"]] = Decimal(row["Monto Aprobado"])
    if not cursor:
        break

with open(os.environ["LEDGER"], newline="", encoding="utf-8") as f:
    ledger = {r["numero_credito"]: Decimal(r["monto_aprobado"]) for r in csv.DictReader(f)}

missing = sorted(set(ledger) - set(served))  # sent, not stored: send again, same Idempotency-Key
extra = sorted(set(served) - set(ledger))
differ = sorted(c for c in set(ledger) & set(served) if ledger[c] != served[c])  # numeric compare
print(f"{month}: {len(served)} reports, total {sum(served.values())}; "
      f"missing {len(missing)}, extra {len(extra)}, amounts differ {len(differ)}")
for c in (missing + extra + differ)[:20]:
    print("  check", c)
sys.exit(0 if not (missing or extra or differ) else 1)
