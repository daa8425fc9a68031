// A partner's program on the fetch client that orval generates from the
// served document (orval/partner.ts, written by ../generators with
// orval.config.mjs), used as generated: the token call sends its form
// (the client's own Content-Type), then it stores a report with a PDF and
// its Idempotency-Key, reads it by its Location, and lists it.
import { createReport, createToken, getReport, listReports, type Report } from "./orval/partner";
import { amount, check, clientId, clientSecret, idOf, main, report } from "./common";

main("orval", async () => {
  const tok = await createToken({ grant_type: "client_credentials", client_id: clientId, client_secret: clientSecret });
  check(tok.status === 200, "token", tok);
  const bearer = { headers: { Authorization: `Bearer ${tok.data.access_token}` } };

  const credit = "CR-2026-0400";
  const body: Report = report(credit);
  const created = await createReport(body, { "Idempotency-Key": `${credit}-v1` }, bearer);
  check(created.status === 201, "create", created);
  const id = idOf(created.headers.get("Location"));
  check(created.data.id === id && created.data.idempotency_key === `${credit}-v1`, "create", created.data);

  const got = await getReport(id, bearer);
  check(got.status === 200, "get", got);
  check(got.data.fields["Monto Aprobado"] === amount, "get", got.data.fields);

  const listed = await listReports({ numero_credito: credit }, bearer);
  check(listed.status === 200, "list", listed);
  // The 200 is JSON or, asked with Accept: text/csv, a CSV string.
  const page = listed.data;
  if (typeof page === "string") throw new Error("list: a CSV page without Accept: text/csv");
  check(page.data.length === 1 && page.data[0]?.id === id && page.next_cursor === null, "list", page);
});
