// Uses the types that openapi-typescript generates from the served OpenAPI
// document (openapi.d.ts, written by ../generators and never committed) as
// a partner's fetch-based code would. tsc fails when the document stops
// giving TypeScript what a partner needs; each @ts-expect-error fails when
// the mistake below it would compile.
import type { components, paths } from "./openapi";

type Report = components["schemas"]["Report"];
type Receipt = paths["/v1/reports"]["post"]["responses"][201]["content"]["application/json"];
type Problem = paths["/v1/reports"]["post"]["responses"][422]["content"]["application/problem+json"];
type TokenForm = paths["/v1/token"]["post"]["requestBody"]["content"]["application/x-www-form-urlencoded"];
type Page = paths["/v1/reports"]["get"]["responses"][200]["content"]["application/json"];
type ListQuery = NonNullable<paths["/v1/reports"]["get"]["parameters"]["query"]>;

export const report: Report = {
  "Numero de Convenio": "CV-001",
  "Tipo de identificación": "CC",
  "Identificación del cliente": "1020304050",
  "Primer Nombre": "Ana",
  "Primer Apellido": "Pérez",
  "Número de Crédito": "CR-2026-0002",
  "Monto Aprobado": "14334900.55",
  "Plazo (meses)": 36,
  "Tasa de Interés Nominal Mes Vencido (%)": "1.85",
  "Valor Cuota Total": "612345.67",
  "Fecha de Desembolso": "2026-11-20",
  "Valor Desembolsado": "14334900.55",
  "Documento Soporte": { Base64String: "JVBERi0xLjQK", FileName: "pagare.pdf" },
};

export const moneyAsNumber: Report = {
  ...report,
  // @ts-expect-error money is a string: a number has already been rounded
  "Monto Aprobado": 14334900.55,
};

export const rateAsNumber: Report = {
  ...report,
  // @ts-expect-error a rate is a string too
  "Tasa de Interés Nominal Mes Vencido (%)": 1.85,
};

export const unknownMember: Report = {
  ...report,
  // @ts-expect-error the v1 report takes no member beyond its fields
  "Numero de Convenio Extra": "x",
};

// @ts-expect-error a required field cannot be left out
export const missingRequired: Report = { "Numero de Convenio": "CV-001" };

export const tokenForm: TokenForm = { grant_type: "client_credentials", client_id: "acme", client_secret: "s" };

export const query: ListQuery = { received_from: "2026-11-20", received_to: "2026-11-21", limit: 500 };

// What a client reads of the answers: a receipt's id and file, a problem's
// code and field problems, a page's cursor.
export function describe(r: Receipt, p: Problem, page: Page): string {
  const file: string | null = r.file;
  const fields = (p.errors ?? []).map((e) => `${e.field}: ${e.code}`);
  const next: string | null = page.next_cursor;
  return `${r.id} ${file ?? "-"} ${p.code} ${fields.join(", ")} ${next ?? "last"}`;
}
