// Verifies webhook deliveries with the standardwebhooks package (an
// implementation of Standard Webhooks that is not ours). Reads a JSON
// array on standard input, each item {"secret": "whsec_...", "headers":
// {"webhook-id", "webhook-timestamp", "webhook-signature"}, "body": the
// body's bytes in base64}, and writes a JSON array of the same length:
// {"ok": true} when the library accepts the delivery under that secret,
// else {"ok": false, "error": its message}. The library also refuses a
// timestamp more than 5 minutes from now.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const { Webhook } = require("standardwebhooks");

let input = "";
for await (const chunk of process.stdin) input += chunk;
const results = JSON.parse(input).map(({ secret, headers, body }) => {
  try {
    new Webhook(secret).verify(Buffer.from(body, "base64"), headers);
    return { ok: true };
  } catch (e) {
    return { ok: false, error: String(e && e.message) };
  }
});
process.stdout.write(JSON.stringify(results));
