// Verifies webhook deliveries with the standardwebhooks package (an
// implementation of Standard Webhooks that is not ours). Reads a JSON
// array on standard input, each item {"secret": "whsec_...", "headers":
// {"webhook-id", "webhook-timestamp", "webhook-signature"}, "body": the
// body's bytes in base64}, and writes a JSON array of the same length:
// {"ok": true} when the library accepts the delivery under that secret,
// else {"ok": false, "error": its message}. The library also refuses a
// timestamp more than 5 minutes from now; an item's optional "now" (Unix
// milliseconds, when the receiver got it) is the instant that is judged
// at, as the receiver would have judged it.
//
// With --lines (the soak's deliveries, too many for one JSON text) it
// reads JSON lines instead: first {"secret": "whsec_..."}, then one item
// per line without "secret" (all verified under that one), and writes one
// JSON object: {"checked": n, "valid": n, "invalid": [{"line": its number,
// counting from 1 after the secret's, "id": its webhook-id, "error"}]},
// the first 100 refused.
import { createRequire } from "node:module";
import { createInterface } from "node:readline";

const require = createRequire(import.meta.url);
const { Webhook } = require("standardwebhooks");
const realNow = Date.now;

// verify returns null when the library accepts the item under secret,
// else its message.
function verify(secret, { headers, body, now }) {
  if (typeof now === "number") Date.now = () => now;
  try {
    new Webhook(secret).verify(Buffer.from(body, "base64"), headers);
    return null;
  } catch (e) {
    return String(e && e.message);
  } finally {
    Date.now = realNow;
  }
}

if (process.argv.includes("--lines")) {
  let secret = null;
  const out = { checked: 0, valid: 0, invalid: [] };
  for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
    if (line === "") continue;
    const item = JSON.parse(line);
    if (secret === null) {
      secret = item.secret;
      continue;
    }
    out.checked++;
    const err = verify(secret, item);
    if (err === null) out.valid++;
    else if (out.invalid.length < 100) out.invalid.push({ line: out.checked, id: item.headers && item.headers["webhook-id"], error: err });
  }
  process.stdout.write(JSON.stringify(out));
} else {
  let input = "";
  for await (const chunk of process.stdin) input += chunk;
  const results = JSON.parse(input).map((item) => {
    const err = verify(item.secret, item);
    return err === null ? { ok: true } : { ok: false, error: err };
  });
  process.stdout.write(JSON.stringify(results));
}
