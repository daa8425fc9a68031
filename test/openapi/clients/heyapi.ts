// A partner's program on the SDK that @hey-api/openapi-ts generates from
// the served document (heyapi/, written by ../generators with
// heyapi.config.mjs), used as its documentation shows: one client whose
// `auth` callback returns the current token for every security scheme the
// document names. It gets a token, stores a report with a PDF, reads it
// by its Location, lists it, then renews the token through the same
// client (the callback then hands the old token to the token call as
// HTTP Basic, beside the form's client_id and client_secret) and lists
// again with the new one.
import { createClient, createConfig } from "./heyapi/client";
import { createReport, createToken, getReport, listReports } from "./heyapi/sdk.gen";
import type { Report } from "./heyapi/types.gen";
import { amount, baseUrl, check, clientId, clientSecret, idOf, main, report } from "./common";

let token: string | undefined;
const client = createClient(createConfig({ baseUrl, auth: () => token }));

async function renew(step: string): Promise<void> {
  const { data, response, error } = await createToken({
    client,
    body: { grant_type: "client_credentials", client_id: clientId, client_secret: clientSecret },
  });
  check(response?.status === 200 && data !== undefined, step, error ?? response?.status);
  // The stage's Postman run rotated the secret first (issue 36): this is
  // the old one, whose tokens end with the overlap, seconds short of 86400.
  check(data.token_type === "Bearer" && data.expires_in > 86400 - 300 && data.expires_in <= 86400, step, data);
  token = data.access_token;
}

main("hey-api", async () => {
  await renew("token");
  const credit = "CR-2026-0300";
  const body: Report = report(credit);
  const created = await createReport({ client, body, headers: { "Idempotency-Key": `${credit}-v1` } });
  check(created.response?.status === 201 && created.data !== undefined, "create", created.error ?? created.response?.status);
  const id = idOf(created.response?.headers.get("Location") ?? null);
  check(created.data.id === id && created.data.numero_credito === credit, "create", created.data);

  const got = await getReport({ client, path: { id } });
  check(got.response?.status === 200 && got.data !== undefined, "get", got.error ?? got.response?.status);
  check(got.data.fields["Monto Aprobado"] === amount && got.data.fields["Valor Desembolsado"] === amount, "get", got.data.fields);

  const listed = await listReports({ client, query: { numero_credito: credit } });
  check(listed.response?.status === 200 && listed.data !== undefined, "list", listed.error ?? listed.response?.status);
  check(listed.data.data.length === 1 && listed.data.data[0]?.id === id && listed.data.next_cursor === null, "list", listed.data);

  const old = token;
  await renew("renewal (auth callback with the old token)");
  check(token !== old, "renewal", "the same token");
  const again = await listReports({ client, query: { numero_credito: credit } });
  check(again.response?.status === 200 && again.data?.data[0]?.id === id, "list with the renewed token", again.error ?? again.response?.status);
});
