// A partner's program on the fetch client that swagger-typescript-api
// generates from the served document (sta/api.ts, written by
// ../generators), with the one option the partner guide names for it:
// baseApiParams {format: "json"}, since the tool reads no response format
// through a $ref to components.responses and would leave every body
// unread (data: null). It gets a token with the form, stores a report with
// a PDF and its Idempotency-Key, reads it by its Location, lists it, and
// reads the errors[] of a 422.
import { Api, TipoIdentificacion, type Problem, type Report } from "./sta/api";
import { amount, baseUrl, check, checkRefused, clientId, clientSecret, idOf, main, refused, report } from "./common";

main("swagger-typescript-api", async () => {
  let token: string | null = null;
  const api = new Api<string>({
    baseUrl,
    baseApiParams: { format: "json" },
    securityWorker: (t) => (t ? { headers: { Authorization: `Bearer ${t}` } } : {}),
  });
  const tok = await api.v1.createToken({ grant_type: "client_credentials", client_id: clientId, client_secret: clientSecret });
  check(tok.status === 200 && typeof tok.data?.access_token === "string", "token", tok.data ?? tok.status);
  token = tok.data.access_token;
  api.setSecurityData(token);

  const credit = "CR-2026-0600";
  // Its enumerations are TypeScript enums (its default enum style).
  const body: Report = { ...report(credit), "Tipo de identificación": TipoIdentificacion.CC };
  const created = await api.v1.createReport(body, { headers: { "Idempotency-Key": `${credit}-v1` } });
  check(created.status === 201 && created.data?.numero_credito === credit, "create", created.data ?? created.status);
  const id = idOf(created.headers.get("Location"));
  check(created.data.id === id, "create", created.data);

  const got = await api.v1.getReport(id);
  check(got.status === 200 && got.data?.fields["Monto Aprobado"] === amount, "get", got.data ?? got.status);

  const listed = await api.v1.listReports({ numero_credito: credit });
  check(listed.status === 200 && listed.data?.data.length === 1 && listed.data.data[0]?.id === id && listed.data.next_cursor === null, "list", listed.data);

  // The generated client throws the answer of a failed call, its problem
  // in error.
  const bad: Report = { ...refused("CR-2026-0601"), "Tipo de identificación": TipoIdentificacion.CC };
  const problem = await api.v1.createReport(bad).then(
    () => undefined,
    (r: { error?: Problem }) => r.error,
  );
  checkRefused(problem);
});
