// What the TypeScript programs on generated clients (heyapi.ts, orval.ts,
// fetch.ts; and sta.ts, kubb.ts, otc.ts, typed.ts and zodios.ts of
// ../generators-ts) share: the partner's settings from the environment,
// the report they store, the one the service refuses, and the check that
// ends a program at the first answer that differs from contract §8.

declare const process: { env: Record<string, string | undefined>; exitCode?: number };

export const baseUrl = process.env.BASE_URL ?? "http://127.0.0.1:8080";
export const clientId = process.env.CLIENT_ID ?? "acme";
export const clientSecret = process.env.CLIENT_SECRET ?? "";

// amount is sent and must come back as written.
export const amount = "14334900.55";

// pdf is a one-page PDF that passes the service's file checks.
const pdf = "%PDF-1.4\n1 0 obj\n<< >>\nendobj\n%%EOF\n";

// report is the twelve required fields and the PDF; each program assigns
// it to its generator's Report type, which tsc holds it to.
export const report = (credit: string) =>
  ({
    "Numero de Convenio": "CV-001",
    "Tipo de identificación": "CC",
    "Identificación del cliente": "1020304050",
    "Primer Nombre": "Ana",
    "Primer Apellido": "Pérez",
    "Número de Crédito": credit,
    "Monto Aprobado": amount,
    "Plazo (meses)": 36,
    "Tasa de Interés Nominal Mes Vencido (%)": "1.85",
    "Valor Cuota Total": "612345.67",
    "Fecha de Desembolso": new Date().toISOString().slice(0, 10),
    "Valor Desembolsado": amount,
    "Documento Soporte": { Base64String: btoa(pdf), FileName: "pagare.pdf" },
  }) as const;

// refused is a report that every schema of the document lets through and
// the service refuses with 422: more disbursed than approved, a rule
// between two fields that no schema states.
export const refused = (credit: string) => ({ ...report(credit), "Valor Desembolsado": "14334900.56" }) as const;

// checkRefused throws unless problem is the 422 of refused: code
// invalid_report, and errors[] naming Valor Desembolsado as inconsistent.
export function checkRefused(problem: { status?: number; code?: string; errors?: { field: string; code: string }[] } | undefined): void {
  const named = problem?.errors?.some((e) => e.field === "Valor Desembolsado" && e.code === "inconsistent") ?? false;
  check(problem?.status === 422 && problem.code === "invalid_report" && named, "422 errors[]", problem);
}

// check throws, naming the step, when ok is false.
export function check(ok: boolean, step: string, got: unknown): asserts ok {
  if (!ok) throw new Error(`${step}: ${JSON.stringify(got)}`);
}

// idOf is the report id at the end of a Location, /v1/reports/{id}.
export function idOf(location: string | null): number {
  const m = /^\/v1\/reports\/([1-9][0-9]*)$/.exec(location ?? "");
  check(m !== null, "Location", location);
  return Number(m[1]);
}

// main runs a program and sets the exit code when it fails.
export function main(name: string, run: () => Promise<void>): void {
  run().then(
    () => console.log(`${name}: ok`),
    (err: unknown) => {
      console.error(`${name}: ${err instanceof Error ? err.message : String(err)}`);
      process.exitCode = 1;
    },
  );
}
