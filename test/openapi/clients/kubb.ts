// A partner's program on what Kubb 4 generates from the served document
// (kubb/, written by ../generators with kubb.config.mjs): its axios client,
// its types, and its zod schemas, which check the answer read back. It
// gets a token with the form, stores a report with a PDF and its
// Idempotency-Key, reads it by its Location, lists it, and reads the
// errors[] of a 422.
import client from "@kubb/plugin-client/clients/axios";
import { isAxiosError } from "axios";
import { createReport } from "./kubb/clients/createReport.ts";
import { createToken } from "./kubb/clients/createToken.ts";
import { getReport } from "./kubb/clients/getReport.ts";
import { listReports } from "./kubb/clients/listReports.ts";
import type { CreateReport422 } from "./kubb/types/CreateReport.ts";
import type { Report } from "./kubb/types/Report.ts";
import { getReportQueryResponseSchema } from "./kubb/zod/getReportSchema.ts";
import { amount, baseUrl, check, checkRefused, clientId, clientSecret, idOf, main, refused, report } from "./common";

main("kubb", async () => {
  client.setConfig({ baseURL: baseUrl });
  const tok = await createToken({ grant_type: "client_credentials", client_id: clientId, client_secret: clientSecret });
  check(tok.status === 200, "token", tok.data);
  const config = { headers: { Authorization: `Bearer ${tok.data.access_token}` } };

  const credit = "CR-2026-0700";
  const body: Report = report(credit);
  const created = await createReport(body, { "Idempotency-Key": `${credit}-v1` }, config);
  check(created.status === 201 && created.data.numero_credito === credit, "create", created.data);
  const id = idOf(String(created.headers["location"] ?? ""));
  check(created.data.id === id, "create", created.data);

  const got = await getReport(id, config);
  check(got.status === 200, "get", got.data);
  const detail = getReportQueryResponseSchema.parse(got.data);
  check(detail.fields["Monto Aprobado"] === amount, "get", detail.fields);

  const listed = await listReports({ numero_credito: credit }, config);
  check(listed.status === 200 && listed.data.data.length === 1 && listed.data.data[0]?.id === id && listed.data.next_cursor === null, "list", listed.data);

  // Kubb's axios client throws on a failed status; the problem is the
  // error's response data.
  const bad: Report = refused("CR-2026-0701");
  const problem = await createReport(bad, undefined, config).then(
    () => undefined,
    (e: unknown) => (isAxiosError<CreateReport422>(e) ? e.response?.data : undefined),
  );
  checkRefused(problem);
});
