// A partner's program on the Zodios client that openapi-zod-client
// generates from the served document (zodios/api.ts, written by
// ../generators) with the option the partner guide names for it:
// --media-type-expr taking application/problem+json beside
// application/json, without which every error's schema is z.void(). It
// gets a token with the form (the endpoint's requestFormat form-url),
// stores a report with a PDF and its Idempotency-Key, reads it back (the
// client returns bodies only, so by the receipt's id, which Location also
// carries), lists it, and reads the errors[] of a 422 through
// isErrorFromAlias. Zodios checks every request and answer against the
// generated zod schemas.
import { isErrorFromAlias } from "@zodios/core";
import { createApiClient } from "./zodios/api";
import { amount, baseUrl, check, checkRefused, clientId, clientSecret, main, refused, report } from "./common";

main("openapi-zod-client", async () => {
  const api = createApiClient(baseUrl);
  const tok = await api.createToken({ grant_type: "client_credentials", client_id: clientId, client_secret: clientSecret });
  const headers = { Authorization: `Bearer ${tok.access_token}` };

  const credit = "CR-2026-1000";
  const created = await api.createReport(report(credit), { headers: { ...headers, "Idempotency-Key": `${credit}-v1` } });
  check(created.numero_credito === credit && created.idempotency_key === `${credit}-v1`, "create", created);
  const id = created.id;

  const got = await api.getReport({ params: { id }, headers });
  check(got.id === id && got.fields["Monto Aprobado"] === amount, "get", got.fields);

  const listed = await api.listReports({ queries: { numero_credito: credit }, headers });
  check(listed.data.length === 1 && listed.data[0]?.id === id && listed.next_cursor === null, "list", listed);

  const problem = await api.createReport(refused("CR-2026-1001"), { headers }).then(
    () => undefined,
    (e: unknown) => (isErrorFromAlias(api.api, "createReport", e) && e.response.status === 422 ? e.response.data : undefined),
  );
  checkRefused(problem);
});
