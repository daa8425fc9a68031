// pdf.js as an oracle of the PDF check (test/pdforacle, pdfjs.go): a
// long-lived process that reads requests on stdin (an 8-byte big-endian
// length, then the PDF) and answers each with one JSON line:
// {"found": [...]} listing what pdf.js finds that acts or carries a file
// (document and page scripts, form fields' scripts, the open action,
// attachments of the name tree and of annotations, links and outline
// items whose URL or action is a script, a launch or an attachment), or
// {"err": "..."} when pdf.js cannot read the file. Requests are answered
// in order, one at a time.
// pdf.js warns with console.log: stdout carries the replies, so its
// words go to stderr. It is imported after that is set.
console.log = (...args) => console.error(...args);
const { getDocument, VerbosityLevel } = await import("pdfjs-dist/legacy/build/pdf.mjs");

// entries lists a Map's or an object's entries (pdf.js returns either).
const entries = (x) => (x instanceof Map ? [...x.entries()] : Object.entries(x ?? {}));

// A URL parser drops C0 controls and spaces before a URL and tabs and
// line breaks anywhere in it.
const scriptURLPattern = /^[\u0000-\u0020]*(javascript|vbscript):/i;
const scriptURL = { test: (s) => scriptURLPattern.test(String(s).replace(/[\t\n\r]/g, "")) };

// linkFindings lists what a link or outline item does that acts.
function linkFindings(where, d) {
  const out = [];
  if (d.attachment) out.push(`${where}: attachment ${d.attachment.filename ?? ""}`);
  if (d.unsafeUrl && scriptURL.test(d.unsafeUrl)) out.push(`${where}: script URL ${d.unsafeUrl.slice(0, 40)}`);
  if (d.url && scriptURL.test(d.url)) out.push(`${where}: script URL ${d.url.slice(0, 40)}`);
  const acts = entries(d.actions).map(([k]) => k);
  if (acts.length) out.push(`${where}: script actions ${acts.join(",")}`);
  if (d.action && typeof d.action === "string" && /javascript/i.test(d.action)) out.push(`${where}: action ${d.action}`);
  return out;
}

async function inspect(data) {
  const task = getDocument({
    data,
    verbosity: VerbosityLevel.ERRORS,
    isEvalSupported: false,
    useSystemFonts: false,
    disableFontFace: true,
    stopAtErrors: false,
    enableXfa: true,
  });
  const doc = await task.promise;
  const found = [];
  try {
    const js = await doc.getJSActions();
    for (const [k, v] of entries(js)) found.push(`document script ${k} (${v.length})`);
    const open = await doc.getOpenAction();
    if (open && (open.action || open.url || open.unsafeUrl)) found.push(`open action ${JSON.stringify(open).slice(0, 60)}`);
    const att = await doc.getAttachments();
    for (const [k] of entries(att)) found.push(`attachment ${k}`);
    const fields = await doc.getFieldObjects();
    for (const [name, list] of entries(fields)) {
      for (const f of list) if (entries(f.actions).length) found.push(`field ${name}: script actions`);
    }
    if (doc.isPureXfa || (await doc.getMetadata())?.info?.IsXFAPresent) found.push("XFA form");
    const outline = await doc.getOutline();
    const walk = (items, depth) => {
      for (const it of items ?? []) {
        found.push(...linkFindings("outline", it));
        if (depth < 32) walk(it.items, depth + 1);
      }
    };
    walk(outline, 0);
    for (let i = 1; i <= Math.min(doc.numPages, 64); i++) {
      const page = await doc.getPage(i);
      const pjs = await page.getJSActions();
      for (const [k] of entries(pjs)) found.push(`page ${i} script ${k}`);
      for (const a of await page.getAnnotations()) {
        if (a.subtype === "FileAttachment" || a.file) found.push(`page ${i}: file attachment annotation`);
        if (a.subtype === "RichMedia" || a.subtype === "Screen" || a.subtype === "Movie") found.push(`page ${i}: ${a.subtype} annotation`);
        // The media file a Screen or RichMedia annotation plays: an
        // embedded file pdf.js reached (the annotation alone says nothing
        // of whether its file could be read).
        if (a.richMedia?.fileId || a.richMedia?.filename) found.push(`page ${i}: ${a.subtype} media file ${a.richMedia.filename ?? a.richMedia.fileId}`);
        found.push(...linkFindings(`page ${i} ${a.subtype}`, a));
      }
    }
  } finally {
    await task.destroy();
  }
  return found;
}

// The requests, read as they come: a buffer of what arrived, taken a
// request at a time.
let pending = Buffer.alloc(0);
let busy = false;
const queue = [];

async function drain() {
  if (busy) return;
  busy = true;
  while (queue.length) {
    const pdf = queue.shift();
    let reply;
    try {
      reply = { found: await inspect(new Uint8Array(pdf)) };
    } catch (e) {
      reply = { err: String(e?.message ?? e).slice(0, 200) };
    }
    process.stdout.write(JSON.stringify(reply) + "\n");
  }
  busy = false;
}

process.stdin.on("data", (chunk) => {
  pending = Buffer.concat([pending, chunk]);
  while (pending.length >= 8) {
    const n = Number(pending.readBigUInt64BE(0));
    if (pending.length < 8 + n) break;
    queue.push(pending.subarray(8, 8 + n));
    pending = pending.subarray(8 + n);
  }
  drain();
});
process.stdin.on("end", () => {
  const wait = () => (busy || queue.length ? setTimeout(wait, 10) : process.exit(0));
  wait();
});
