// Checks newman's JSON report of a run of the Postman collection that
// openapi-to-postmanv2 generated from the served document, run as
// generated (../generators: no request edited, no script added; the
// environment file gives baseUrl, the credentials and the token). Every
// /v1 operation of the document ran once, and each answered as contract §8
// has it on a fresh instance: the token, the report (201, Location
// /v1/reports/1, the first report of the instance, which is the
// document's example id), the list holding it, validate, the report
// read back by that id with its money as sent, and the routes of contract
// §11 (below). Usage:
//   node check-run.mjs openapi.yaml newman-report.json
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const yaml = require("js-yaml");

const [docPath, reportPath] = process.argv.slice(2);
const doc = yaml.load(readFileSync(docPath, "utf8"));
const { run } = JSON.parse(readFileSync(reportPath, "utf8"));

// What each /v1 operation must answer, given its parsed body and headers.
const expected = {
  createToken: { status: 200, ok: (b, h) => b.token_type === "Bearer" && b.expires_in === 86400 && h["cache-control"] === "no-store" },
  createReport: { status: 201, ok: (b, h) => h.location === "/v1/reports/1" && b.id === 1 && /\.pdf$/.test(b.file ?? "") },
  listReports: { status: 200, ok: (b) => b.data.some((r) => r.id === 1) && b.next_cursor === null },
  validateReport: { status: 200, ok: (b) => b.valid === true },
  getReport: { status: 200, ok: (b) => b.id === 1 && /^[0-9]+\.[0-9]{2}$/.test(b.fields["Monto Aprobado"]) },
  // Contract §11. The events list may be empty (an event is listed once
  // events.list_delay old); the document's example event and endpoint ids
  // name nothing on a fresh instance, so their routes answer 404
  // not_found, as for another partner's.
  listEvents: { status: 200, ok: (b) => Array.isArray(b.data) },
  getEvent: { status: 404, ok: (b) => b.code === "not_found" },
  redeliverEvent: { status: 404, ok: (b) => b.code === "not_found" },
  createWebhookEndpoint: { status: 201, ok: (b, h) => /^whsec_/.test(b.secret) && h.location === `/v1/webhook_endpoints/${b.id}` },
  listWebhookEndpoints: { status: 200, ok: (b) => Array.isArray(b.data) && b.data.every((e) => e.secret === undefined) },
  getWebhookEndpoint: { status: 404, ok: (b) => b.code === "not_found" },
  deleteWebhookEndpoint: { status: 404, ok: (b) => b.code === "not_found" },
  rotateWebhookSecret: { status: 404, ok: (b) => b.code === "not_found" },
  listWebhookAttempts: { status: 404, ok: (b) => b.code === "not_found" },
  // Issue 36: the partner's own secret rotation, with the run's token; the
  // old secret (the environment's) keeps working for the overlap.
  rotateCredentials: { status: 200, ok: (b, h) => /^[A-Z2-7]{52}$/.test(b.secret) && h["cache-control"] === "no-store" },
};

const ops = new Map();
for (const [path, item] of Object.entries(doc.paths)) {
  if (!path.startsWith("/v1/")) continue;
  for (const [method, op] of Object.entries(item)) {
    if (!expected[op.operationId]) throw new Error(`check-run.mjs: no expectation for ${op.operationId}; add one`);
    ops.set(`${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ":$1")}`, op.operationId);
  }
}

const problems = (run.failures ?? []).map((f) => `${f.source?.name ?? "?"}: ${f.error?.message ?? f.error?.name}`);
const seen = new Set();
for (const ex of run.executions) {
  const req = ex.item.request ?? ex.request;
  const key = `${req.method} /${(req.url.path ?? []).join("/")}`;
  const id = ops.get(key);
  if (!id) continue;
  seen.add(id);
  const res = ex.response;
  if (!res) {
    problems.push(`${id}: no answer (${ex.requestError?.message ?? "request failed"})`);
    continue;
  }
  const text = Buffer.from(res.stream?.data ?? []).toString("utf8");
  const headers = Object.fromEntries((res.header ?? []).map((h) => [h.key.toLowerCase(), h.value]));
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  const want = expected[id];
  if (res.code !== want.status || !want.ok(body, headers)) {
    problems.push(`${id} (${key}): ${res.code} ${text.slice(0, 300)}; want ${want.status}`);
  } else {
    console.log(`newman: ${id} ${res.code}`);
  }
}
for (const id of ops.values()) {
  if (!seen.has(id)) problems.push(`${id}: not run`);
}
if (problems.length > 0) {
  console.error("newman run of the generated collection:\n  " + problems.join("\n  "));
  process.exit(1);
}
console.log(`newman: all ${ops.size} /v1 requests of the generated collection answered as the contract says`);
