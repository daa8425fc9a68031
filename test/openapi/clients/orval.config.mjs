// orval's configuration for ../generators: a fetch client of the served
// document (DOC) for the operations not tagged operator, with header
// parameters (headers: true; orval leaves them out by default, and
// Idempotency-Key is one) and the service's address (BASE_URL) before its
// relative paths, as Node.js's fetch needs.
export default {
  partner: {
    input: { target: process.env.DOC, filters: { mode: "exclude", tags: ["operator"] } },
    output: { target: "orval/partner.ts", client: "fetch", mode: "single", headers: true, baseUrl: process.env.BASE_URL },
  },
};
