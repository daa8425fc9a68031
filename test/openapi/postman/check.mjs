// Checks a Postman collection generated from the served OpenAPI document
// (openapi2postmanv2, by ../generators): every /v1 operation of the
// document is a request of the collection, with the document's method and
// path, and a body where the operation takes one. Usage:
//   node check.mjs openapi.yaml collection.json
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const yaml = require("js-yaml");

const [docPath, collectionPath] = process.argv.slice(2);
const doc = yaml.load(readFileSync(docPath, "utf8"));
const collection = JSON.parse(readFileSync(collectionPath, "utf8"));

// The document's /v1 operations, as "METHOD path" with Postman's :param.
const want = new Map();
for (const [path, item] of Object.entries(doc.paths)) {
  if (!path.startsWith("/v1/")) continue;
  for (const [method, op] of Object.entries(item)) {
    const key = `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ":$1")}`;
    want.set(key, { operationId: op.operationId, body: Boolean(op.requestBody) });
  }
}

// The collection's requests, folders walked.
const got = new Map();
const walk = (items) => {
  for (const it of items) {
    if (it.item) {
      walk(it.item);
      continue;
    }
    const url = it.request.url;
    const path = "/" + (Array.isArray(url.path) ? url.path.join("/") : String(url.path ?? ""));
    got.set(`${it.request.method} ${path}`, it.request);
  }
};
walk(collection.item);

const problems = [];
if (want.size < 5) problems.push(`the document has only ${want.size} /v1 operations`);
for (const [key, op] of want) {
  const req = got.get(key);
  if (!req) {
    problems.push(`${op.operationId} (${key}) is not in the collection`);
  } else if (op.body && !(req.body && (req.body.raw || req.body.urlencoded))) {
    problems.push(`${op.operationId} (${key}) has no body in the collection`);
  }
}
if (problems.length > 0) {
  console.error("postman collection:\n  " + problems.join("\n  "));
  process.exit(1);
}
console.log(`postman collection: all ${want.size} /v1 operations present (${got.size} requests in all)`);
