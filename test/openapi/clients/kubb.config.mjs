// Kubb's configuration for ../generators: the served document (DOC), the
// operations not tagged operator, as TypeScript types, zod schemas and a
// client, into kubb/. The client is Kubb's axios one (client: "axios", the
// option the partner guide names): Kubb 4's fetch client sends every body
// as JSON text without a Content-Type (a 400 on the token's form, a 415 on
// a report). dataReturnType "full" gives the status and headers
// (Location) beside the body.
import { defineConfig } from "@kubb/core";
import { pluginClient } from "@kubb/plugin-client";
import { pluginOas } from "@kubb/plugin-oas";
import { pluginTs } from "@kubb/plugin-ts";
import { pluginZod } from "@kubb/plugin-zod";

const exclude = [{ type: "tag", pattern: "operator" }];

export default defineConfig({
  root: ".",
  input: { path: process.env.DOC },
  output: { path: "./kubb", clean: true, format: false, lint: false },
  plugins: [
    pluginOas(),
    pluginTs({ exclude }),
    pluginZod({ exclude }),
    pluginClient({ client: "axios", dataReturnType: "full", exclude }),
  ],
});
