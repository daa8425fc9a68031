// A partner's program on the client that typed-openapi 2 generates from
// the served document (typed/api.ts, written by ../generators; runtime
// none, the default), with the fetcher typed-openapi leaves to its user:
// the token request goes as the form its endpoint declares (requestFormat
// form-url), every other body as JSON, and the token as Bearer. It gets a
// token, stores a report with a PDF and its Idempotency-Key, reads it by
// its Location, lists it, and reads the errors[] of a 422.
import { createApiClient, TypedStatusError, type Fetcher, type Schemas } from "./typed/api";
import { amount, baseUrl, check, checkRefused, clientId, clientSecret, idOf, main, refused, report } from "./common";

let token: string | undefined;

const fetcher: Fetcher = {
  fetch: async (input) => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(input.parameters?.header ?? {})) {
      if (value != null) headers.set(name, String(value));
    }
    if (token !== undefined) headers.set("Authorization", `Bearer ${token}`);
    if (input.urlSearchParams) input.url.search = input.urlSearchParams.toString();
    let body: string | URLSearchParams | undefined;
    const sent = input.parameters?.body;
    if (sent !== undefined && input.path === "/v1/token") {
      body = new URLSearchParams(sent as Record<string, string>);
    } else if (sent !== undefined) {
      body = JSON.stringify(sent);
      headers.set("Content-Type", "application/json");
    }
    return fetch(input.url, { method: input.method.toUpperCase(), body, headers, ...input.overrides });
  },
};

main("typed-openapi", async () => {
  const api = createApiClient(fetcher, baseUrl);
  const tok = await api.post("/v1/token", { body: { grant_type: "client_credentials", client_id: clientId, client_secret: clientSecret } });
  token = tok.access_token;

  const credit = "CR-2026-0900";
  const body: Schemas.Report = report(credit);
  const created = await api.post("/v1/reports", { body, header: { "Idempotency-Key": `${credit}-v1` }, withResponse: true });
  check(created.status === 201, "create", created.data);
  const id = idOf(created.headers.get("Location"));
  check(created.data.id === id && created.data.numero_credito === credit, "create", created.data);

  const got = await api.get("/v1/reports/{id}", { path: { id } });
  check(got.fields["Monto Aprobado"] === amount, "get", got.fields);

  const listed = await api.get("/v1/reports", { query: { numero_credito: credit } });
  check(listed.data.length === 1 && listed.data[0]?.id === id && listed.next_cursor === null, "list", listed);

  // The client throws a TypedStatusError whose response data is the problem.
  const bad: Schemas.Report = refused("CR-2026-0901");
  const problem = await api.post("/v1/reports", { body: bad, header: {} }).then(
    () => undefined,
    (e: unknown) => (e instanceof TypedStatusError ? (e.response.data as Schemas.Problem) : undefined),
  );
  checkRefused(problem);
});
