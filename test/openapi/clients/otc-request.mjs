// otc-request.mjs PLAIN OUT writes OUT, the request file that
// ../generators hands to openapi-typescript-codegen's --request option: a
// copy of the core/request.ts the tool generated (PLAIN) in which
// getFormData returns the form as URLSearchParams when the operation's
// media type is application/x-www-form-urlencoded (fetch then sends it
// urlencoded, with that Content-Type), where the tool always builds a
// multipart FormData. It fails when the code it changes is not there.
import { readFileSync, writeFileSync } from "node:fs";

const [plain, out] = process.argv.slice(2);
let src = readFileSync(plain, "utf8");
const edits = [
  [
    "export const getFormData = (options: ApiRequestOptions): FormData | undefined => {\n",
    "export const getFormData = (options: ApiRequestOptions): FormData | URLSearchParams | undefined => {\n" +
      "    if (options.formData && options.mediaType === 'application/x-www-form-urlencoded') {\n" +
      "        return new URLSearchParams(options.formData);\n" +
      "    }\n",
  ],
  ["    formData: FormData | undefined,\n", "    formData: FormData | URLSearchParams | undefined,\n"],
];
for (const [from, to] of edits) {
  if (!src.includes(from)) {
    console.error(`otc-request.mjs: ${plain} has no ${JSON.stringify(from)}; openapi-typescript-codegen's request.ts changed`);
    process.exit(1);
  }
  src = src.replaceAll(from, to);
}
writeFileSync(out, src);
