// Adds Postman tests to the collection that openapi-to-postmanv2 generated
// from the served document, for newman to run against a fresh instance
// (../generators). openapi-to-postmanv2 writes no tests, so without these
// newman would pass on any answer. Only test scripts are added: every
// request, its auth, parameters and body, goes as generated. Usage:
//   node with-tests.mjs openapi.yaml collection.json collection.tested.json
//
// The requests of the v1 folder run in the collection's order: the token
// (HTTP Basic from basicAuthUsername and basicAuthPassword, the form's
// optional client_id and client_secret left disabled by
// enableOptionalParameters=false), then the report, the list, validate,
// and the report by the document's example id, 1: the first report of a
// fresh instance, which the test of the report checks it created.
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const yaml = require("js-yaml");

const [docPath, collectionPath, outPath] = process.argv.slice(2);
const doc = yaml.load(readFileSync(docPath, "utf8"));
const collection = JSON.parse(readFileSync(collectionPath, "utf8"));

// What each /v1 operation must answer on a fresh instance, and what else
// its test checks, as Postman test script lines.
const expected = {
  createToken: {
    status: 200,
    checks: [
      'const body = pm.response.json();',
      'pm.test("a Bearer token for 24 h, not to be cached", () => {',
      '  pm.expect(body.token_type).to.equal("Bearer");',
      '  pm.expect(body.expires_in).to.equal(86400);',
      '  pm.expect(body.access_token).to.match(/^[\\w-]+\\.[\\w-]+\\.[\\w-]+$/);',
      '  pm.expect(pm.response.headers.get("Cache-Control")).to.equal("no-store");',
      '});',
      'pm.collectionVariables.set("bearerToken", body.access_token);',
    ],
  },
  createReport: {
    status: 201,
    checks: [
      'const body = pm.response.json();',
      'const sent = JSON.parse(pm.request.body.raw);',
      'pm.test("Location names the receipt\'s report", () => {',
      '  pm.expect(pm.response.headers.get("Location")).to.equal("/v1/reports/" + body.id);',
      '  pm.expect(body.numero_credito).to.equal(sent["Número de Crédito"]);',
      '  pm.expect(body.file).to.match(/\\.pdf$/);',
      '});',
      'pm.collectionVariables.set("createdId", String(body.id));',
      'pm.collectionVariables.set("sentAmount", sent["Monto Aprobado"]);',
    ],
  },
  listReports: {
    status: 200,
    checks: [
      'const body = pm.response.json();',
      'pm.test("the page holds the stored report, and it is the last", () => {',
      '  pm.expect(body.data.map((r) => String(r.id))).to.include(pm.collectionVariables.get("createdId"));',
      '  pm.expect(body.next_cursor).to.equal(null);',
      '});',
    ],
  },
  validateReport: {
    status: 200,
    checks: ['pm.test("valid", () => pm.expect(pm.response.json().valid).to.equal(true));'],
  },
  getReport: {
    status: 200,
    checks: [
      'const body = pm.response.json();',
      'pm.test("the example id is the report stored above, its money as sent", () => {',
      '  pm.expect(String(body.id)).to.equal(pm.collectionVariables.get("createdId"));',
      '  pm.expect(body.fields["Monto Aprobado"]).to.equal(pm.collectionVariables.get("sentAmount"));',
      '});',
    ],
  },
};

// The document's /v1 operations by "METHOD path" with Postman's :param;
// each expected status must be one the document gives the operation.
const ops = new Map();
for (const [path, item] of Object.entries(doc.paths)) {
  if (!path.startsWith("/v1/")) continue;
  for (const [method, op] of Object.entries(item)) {
    const want = expected[op.operationId];
    if (!want) throw new Error(`with-tests.mjs: no test for ${op.operationId}; add one`);
    if (!op.responses[String(want.status)]) throw new Error(`${op.operationId}: the document gives no ${want.status}`);
    ops.set(`${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ":$1")}`, { id: op.operationId, ...want });
  }
}

let tested = 0;
const walk = (items) => {
  for (const it of items) {
    if (it.item) {
      walk(it.item);
      continue;
    }
    const url = it.request.url;
    const op = ops.get(`${it.request.method} /${(url.path ?? []).join("/")}`);
    if (!op) continue;
    const exec = [
      `pm.test("${op.id}: ${op.status}", () => pm.response.to.have.status(${op.status}));`,
      ...op.checks,
    ];
    it.event = [...(it.event ?? []), { listen: "test", script: { type: "text/javascript", exec } }];
    tested++;
  }
};
walk(collection.item);
if (tested !== ops.size) {
  console.error(`with-tests.mjs: ${tested} requests tested, ${ops.size} /v1 operations`);
  process.exit(1);
}
writeFileSync(outPath, JSON.stringify(collection, null, 2));
console.log(`postman collection: tests added to the ${tested} /v1 requests`);
