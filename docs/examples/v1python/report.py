"""The partner guide's Python example for /v1: a token from
requests-oauthlib (OAuth 2.0 client credentials), one report sent with an
Idempotency-Key and retried safely, the report read back where Location
says, and the receipts of its credit number. Debian 12: apt-get install
python3-requests-oauthlib. Run:

    BASE_URL=https://HOST CLIENT_ID=acme CLIENT_SECRET='...' python3 report.py
"""
import datetime
import os
import sys
import time

import requests
from oauthlib.oauth2 import BackendApplicationClient
from requests_oauthlib import OAuth2Session

BASE = os.environ["BASE_URL"]
CLIENT_ID, CLIENT_SECRET = os.environ["CLIENT_ID"], os.environ["CLIENT_SECRET"]
session = OAuth2Session(client=BackendApplicationClient(client_id=CLIENT_ID))


def new_token():
    # requests-oauthlib sends the credentials in HTTP Basic.
    session.fetch_token(token_url=BASE + "/v1/token", client_id=CLIENT_ID, client_secret=CLIENT_SECRET, timeout=60)


def call(method, path, **kwargs):
    """Calls /v1 with a token that has a minute left at least; a 401 gets
    one new token and one retry (its problem's "reason" says why)."""
    if not session.authorized or session.token.get("expires_at", 0) < time.time() + 60:
        new_token()
    answer = session.request(method, BASE + path, timeout=60, **kwargs)
    if answer.status_code == 401:
        new_token()
        answer = session.request(method, BASE + path, timeout=60, **kwargs)
    return answer


def send(report, key):
    """Posts the report. It retries what a retry can fix (no answer, 408,
    409, 503) with the same Idempotency-Key, after Retry-After when there
    is one: never with a new key, since after a 503 outcome_unknown the
    first send may have been stored. Any other error is a problem to fix."""
    for attempt in range(1, 6):
        try:
            answer = call("POST", "/v1/reports", json=report, headers={"Idempotency-Key": key})
        except requests.ConnectionError as err:
            print("no answer, retrying:", err, file=sys.stderr)
            time.sleep(attempt * attempt)
            continue
        if answer.status_code in (200, 201):
            return answer
        problem = answer.json()  # application/problem+json
        if answer.status_code not in (408, 409, 503):
            sys.exit(f"{answer.status_code} {problem['code']}: {problem['detail']} {problem.get('errors', [])} "
                     f"(request_id {problem['request_id']})")
        time.sleep(int(answer.headers.get("Retry-After", attempt * attempt)))
    sys.exit("giving up after 5 attempts")


# Money and rates are JSON strings: a float cannot hold every amount.
report = {
    "Numero de Convenio": "CV-001",
    "Tipo de identificación": "CC",
    "Identificación del cliente": "1020304050",
    "Primer Nombre": "Ana",
    "Primer Apellido": "Pérez",
    "Número de Crédito": "CR-2026-0015",
    "Monto Aprobado": "14334900.55",
    "Plazo (meses)": 36,
    "Tasa de Interés Nominal Mes Vencido (%)": "1.85",
    "Valor Cuota Total": "612345.67",
    "Fecha de Desembolso": datetime.datetime.now(datetime.timezone.utc).date().isoformat(),
    "Valor Desembolsado": "14334900.55",
}
answer = send(report, "CR-2026-0015-v1")
# 201: stored now. 200 with Idempotent-Replayed: stored before. Either
# way, Location names the report.
location = answer.headers["Location"]
print(answer.status_code, location, "Idempotent-Replayed:", answer.headers.get("Idempotent-Replayed", "false"))

stored = call("GET", location)
stored.raise_for_status()
print("Monto Aprobado", stored.json()["fields"]["Monto Aprobado"])

# requests encodes each parameter (a "+" in an offset becomes %2B).
page = call("GET", "/v1/reports", params={"numero_credito": "CR-2026-0015"})
page.raise_for_status()
print("receipts", [r["id"] for r in page.json()["data"]])
