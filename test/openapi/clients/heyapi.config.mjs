// @hey-api/openapi-ts's configuration for ../generators: the served
// document (DOC), the fetch client it bundles, and every operation but
// those tagged operator (the built-in login, probes and metrics).
export default {
  input: process.env.DOC,
  output: "heyapi",
  parser: { filters: { tags: { exclude: ["operator"] } } },
};
