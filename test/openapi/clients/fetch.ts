// A partner's program on openapi-fetch over the types openapi-typescript
// generates from the served document (../typescript/openapi.d.ts, written
// by ../generators): it gets a token with the form, stores a report with a
// PDF and its Idempotency-Key, reads it by its Location, and lists it.
import createClient from "openapi-fetch";
import type { components, paths } from "../typescript/openapi";
import { amount, baseUrl, check, clientId, clientSecret, idOf, main, report } from "./common";

main("openapi-fetch", async () => {
  const api = createClient<paths>({ baseUrl });
  const tok = await api.POST("/v1/token", {
    body: { grant_type: "client_credentials", client_id: clientId, client_secret: clientSecret },
    bodySerializer: (b) => new URLSearchParams(b as Record<string, string>),
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
  });
  check(tok.response.status === 200 && tok.data !== undefined, "token", tok.error ?? tok.response.status);
  const headers = { Authorization: `Bearer ${tok.data.access_token}` };

  const credit = "CR-2026-0500";
  const body: components["schemas"]["Report"] = report(credit);
  const created = await api.POST("/v1/reports", { body, headers, params: { header: { "Idempotency-Key": `${credit}-v1` } } });
  check(created.response.status === 201 && created.data !== undefined, "create", created.error ?? created.response.status);
  const id = idOf(created.response.headers.get("Location"));

  const got = await api.GET("/v1/reports/{id}", { headers, params: { path: { id } } });
  check(got.response.status === 200 && got.data !== undefined, "get", got.error ?? got.response.status);
  check(got.data.fields["Monto Aprobado"] === amount, "get", got.data.fields);

  const listed = await api.GET("/v1/reports", { headers, params: { query: { numero_credito: credit } } });
  check(listed.response.status === 200 && listed.data !== undefined, "list", listed.error ?? listed.response.status);
  // The 200 is JSON or, asked with Accept: text/csv, a CSV string.
  const page = listed.data;
  if (typeof page === "string") throw new Error("list: a CSV page without Accept: text/csv");
  check(page.data.length === 1 && page.data[0]?.id === id && page.next_cursor === null, "list", page);
});
