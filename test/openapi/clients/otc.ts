// A partner's program on the fetch client that openapi-typescript-codegen
// generates from the served document (otc/, written by ../generators)
// with the option the partner guide names for it: --request, a copy of
// its core/request.ts that sends a form as application/x-www-form-urlencoded
// (otc-request.mjs makes it), since the tool sends every form as
// multipart/form-data and the token endpoint takes the urlencoded form
// (RFC 6749 §4.4.2). It gets a token with the form, stores a report with a
// PDF and its Idempotency-Key, reads it back (the client returns bodies
// only, so by the receipt's id, which Location also carries), lists it,
// and reads the errors[] of a 422.
import { ApiError, OpenAPI, TipoIdentificacion, TokenRequest, V1Service, type Problem, type Report } from "./otc/index";
import { amount, baseUrl, check, checkRefused, clientId, clientSecret, main, refused, report } from "./common";

main("openapi-typescript-codegen", async () => {
  OpenAPI.BASE = baseUrl;
  const tok = await V1Service.createToken({ grant_type: TokenRequest.grant_type.CLIENT_CREDENTIALS, client_id: clientId, client_secret: clientSecret });
  check("access_token" in tok, "token", tok);
  OpenAPI.TOKEN = tok.access_token;

  const credit = "CR-2026-0800";
  // Its enumerations are TypeScript enums.
  const body: Report = { ...report(credit), "Tipo de identificación": TipoIdentificacion.CC };
  const created = await V1Service.createReport(body, `${credit}-v1`);
  check("numero_credito" in created && created.numero_credito === credit && created.idempotency_key === `${credit}-v1`, "create", created);
  const id = created.id;

  const got = await V1Service.getReport(id);
  check("fields" in got && got.id === id && got.fields["Monto Aprobado"] === amount, "get", got);

  const listed = await V1Service.listReports(credit);
  check("data" in listed && listed.data.length === 1 && listed.data[0]?.id === id && listed.next_cursor === null, "list", listed);

  // The generated client throws an ApiError whose body is the problem.
  const bad: Report = { ...refused("CR-2026-0801"), "Tipo de identificación": TipoIdentificacion.CC };
  const problem = await V1Service.createReport(bad).then(
    () => undefined,
    (e: unknown) => (e instanceof ApiError ? (e.body as Problem) : undefined),
  );
  checkRefused(problem);
});
