// MuPDF as an oracle of the PDF check (test/pdforacle, readers.go), run
// by `mutool run`: a long-lived process that reads a PDF's path per line
// on stdin and answers each with one line of JSON: {"found": [...]}
// listing the names of actions, scripts and attachments in every object
// MuPDF reads from the file (its cross-reference, object streams and
// repair included), and links whose URI is a script; or {"err": "..."}
// when MuPDF cannot open the file.

var active = {
  JavaScript: 1, JS: 1, Launch: 1, EmbeddedFile: 1, EmbeddedFiles: 1, EF: 1,
  FileAttachment: 1, RichMedia: 1, XFA: 1
};
// A URL parser drops C0 controls and spaces before a URL and tabs and
// line breaks anywhere in it.
var scriptURI = /^[\u0000-\u0020]*(javascript|vbscript):/i;
function isScriptURI(s) {
  return scriptURI.test(s.replace(/[\t\n\r]/g, ""));
}

function inspect(path) {
  var doc = new PDFDocument(path);
  var found = [];
  var seen = {};
  function note(what) {
    if (!seen[what]) {
      seen[what] = 1;
      found.push(what);
    }
  }
  function walk(o, depth) {
    if (o === null || typeof o !== "object" || depth > 64) return;
    if (o.isIndirect()) return; // each object is walked once, by number
    if (o.isName()) {
      if (active[o.asName()]) note(o.asName());
    } else if (o.isArray()) {
      for (var i = 0; i < o.length; i++) walk(o.get(i), depth + 1);
    } else if (o.isDictionary()) {
      // MuPDF 1.21 calls f(key, value), later releases f(value, key).
      o.forEach(function (a, b) {
        var k = typeof a === "string" ? a : b;
        var v = typeof a === "string" ? b : a;
        if (active[k]) note(k);
        if (k === "URI" || k === "F") {
          var s = typeof v === "object" && v !== null && v.isIndirect() ? v.resolve() : v;
          if (s && typeof s === "object" && s.isString() && isScriptURI(s.asString())) note(k + " " + s.asString().slice(0, 40));
        }
        walk(v, depth + 1);
      });
    }
  }
  var n = doc.countObjects();
  for (var i = 1; i < n && i < 1000000; i++) {
    var o;
    try {
      o = doc.newIndirect(i, 0).resolve();
    } catch (e) {
      continue; // an object MuPDF cannot load: it reads nothing from it
    }
    walk(o, 0);
  }
  walk(doc.getTrailer(), 0);
  return found;
}

for (;;) {
  var line;
  try {
    line = readline();
  } catch (e) {
    break; // stdin ended
  }
  if (line === null || line === undefined) break;
  var reply;
  try {
    reply = { found: inspect(line) };
  } catch (e) {
    reply = { err: String(e).slice(0, 200) };
  }
  print(JSON.stringify(reply));
}
