package filecheck

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReviewFiles: the files of the twentieth session's seven attacker
// reviews (testdata/review20 to 26, with the generators that built them). Each hides a file specification with /EF (filter-*, a script)
// where only a viewer that reads a stream or a definition its own way
// reaches it. review20: an uncompressed object stream read past its first
// endstream by a /Length longer than that (visible-long), by pdf.js
// whatever the /Length when the stream has /First (visible-short,
// direct-short), by a /Length counted from before 220 spaces (slack), by
// a /Length or definition whose reference has a comment inside
// (dictcomment, defcomment), by a definition written "+5 0obj",
// "000000000005 0obj" or "5 0000000obj" (hidden-*, filter-sign,
// filter-zeros), or by a member taken by its index (index). review21: an
// object stream whose data a viewer reads as it is while its dictionary
// names /FlateDecode somewhere else than in what /Filter holds (in a
// comment, a string, a nested dictionary, /F null, an undefined or
// doubly defined reference, "7 0 obj5"): the data has no zlib header,
// so it is read as it is too. review22: review21's files with a second
// "stream" keyword and zlib data inside the first stream's data (nest-*),
// ASCIIHex or ASCII85 object streams with a /FlateDecode named elsewhere
// (ahx-*, a85-*), and a Brotli stage the check did not count (br-arr).
// review23: no object stream at all: an object written whole inside
// another stream's data, which the cross-reference points at (data-*),
// and the keyword stream inside a string or a comment (str-*).
// review24: ways around review23's rules: an object stream's dictionary
// emptied by "stream ... endstream" inside one of its strings or arrays
// (objstm-*), "stream" as a bare key, value or array element or before a
// trailer that readers rebuild the file from (dict-*, arr-kw, trl-bare),
// definitions written "10 0%c<LF>obj", "10 0. obj" or "10 - obj"
// (def*-*), and an "endstream" inside a string of an object defined in
// data (reset-*), and a trailer inside stream data that qpdf alone
// rebuilds a file from (trl-data). review25: ">>" where a dictionary's
// value belongs, which pdf.js takes for the value (val-gt*), nesting past
// the 64 containers whose kinds are kept (deep-*), a stream whose
// dictionary is a reference (ref-objstm), a trailer in an image's data
// (trl-dct): an /EF followed by "<<" or "N G R" now counts in any data.
// review26: that /EF's reference in forms pdf.js reads and the rule did
// not ("1-2 0 R", "12.0.0 R", "+<LF>12 0 R", "12+0 R"): any byte a
// number may start with now counts. review27 (the seventh review's, built
// in the twenty-first session): no /EF at all, a Screen annotation's
// rendition whose media clip is a plain stream (med-*) and a Sound
// annotation (snd), which pdf.js hands out as attachments: /Rendition and
// /Sound count; and from the twenty-first session's review, form-field
// scripts MuPDF runs by /AA /F /JS alone (no /S /JavaScript), in a
// dictionary written in stream data with no "N G obj" before it: a
// trailer that startxref points at (js-*-trl, js-fmt-dct) or data MuPDF's
// repair lexes as objects (js-rep-*): an /AA with a dictionary or
// reference after it in data makes /JS and /EF count from there. Its
// ruled-out candidates (neg-*: a file's bytes under /AF, /RF, /DOS, a
// file specification's /F, GoToE, /Collection, a Movie) hide nothing any
// reader finds today and pass; should a reader start to play one, this
// test fails. review28 (the twenty-first session's review): an object
// defined in data whose "N G" the cross-reference offset starts inside a
// comment-looking line ("x<LF>%9 0 %c<LF>obj": the check took the line's
// first % for the comment and saw no definition; def-cmt*) or whose
// comment's line starts before the window that holds its obj (def-win:
// the 32 bytes a window keeps hold no %), and a trailer
// in data with /Encrypt, whose javascript: and vbscript: links every
// reader decrypts (enc-uri*): refused as encrypted (refusedAs); and a
// link whose URI string follows a comment ending in "(" or "<", which the
// URI scan took for the start of a string and read the real "(" inside
// (uri-cmt-*); and keywords written with #xx escapes, which MuPDF
// decodes ("9 0 ob#6A" in data, def-hex*; an object stream opened by
// "str#65am" holding a whole document, kw-objstm): refused, and a value's
// keyword read as MuPDF reads it (an uncompressed object stream's
// "/Length 7 0 #52", a long length read short here, len-r-hex). review29 (the review of 291a3bf): an object defined
// in data whose comment between "N G" and obj has white space before its
// line break ("9 0 %c <LF>obj": the walk back stopped at that space and
// asked for an end of line there; def-trail-*), and a link whose hex
// string holds bytes that are no hex digit, which pdf.js skips and the
// URI scan gave the string up at ("<6A61 x 7661...>", uri-hexjunk-*):
// every "(" and "<" now starts a candidate string read beside the
// others. Since
// most earlier files play their attachment through a
// rendition too, each of review20 to 26 is checked again with its plain
// "/Rendition" renamed (same length, so every offset holds): the rule it
// was written against still refuses it.
// Every one is refused, and a reader no one here wrote finds what it
// hides (pdf.js: the media file a Screen annotation plays, which the
// annotation alone does not show: none.pdf); harmless lists the files
// that hide nothing any reader finds, and whether the check takes them.
func TestReviewFiles(t *testing.T) {
	harmless := map[string]Kind{
		// An /N stream read by a short /Length (MuPDF stops there); its
		// data holds "/EF <<", which counts in any data since the sixth
		// review.
		"review20/visible-short-nofirst.pdf": ActiveContent,
		// FlateDecode data with no zlib header, which no writer makes:
		// read as it is too, so refused for what it spells.
		"review21/b-control.pdf":      ActiveContent,
		"review21/m-control.pdf":      ActiveContent,
		"review22/nest-b-control.pdf": ActiveContent,
		"review22/nest-m-control.pdf": ActiveContent,
		// Object 10 is in no cross-reference: its /EF counts here, no
		// reader reaches it.
		"review22/none.pdf": ActiveContent,
		// Object 10 is written in a stream's data and in no
		// cross-reference: no reader reaches it, but the check does not
		// read cross-references, and counts markers after a definition
		// in data.
		"review23/data-ctl.pdf": ActiveContent,
		// No reader reads these (pdf.js: invalid /First and /N).
		"review25/deep-n.pdf":     ActiveContent,
		"review25/deep-n-ctl.pdf": ActiveContent,
		// Real-style files: a balanced one and one with a comment between
		// ">>" and "stream" pass; one whose Info dictionary leaves an
		// array open is refused (every later stream read as pseudo data
		// of an object stream: a false refusal, left open).
		"review25/fp-bal.pdf":   accepted,
		"review25/fp-cmt.pdf":   accepted,
		"review25/fp-unbal.pdf": ActiveContent,
		// What no reader reaches without a counted name (review27).
		"review27/neg-af-doc.pdf": accepted, "review27/neg-coll.pdf": accepted,
		"review27/neg-fs-fstream.pdf": accepted, "review27/neg-gotoe.pdf": accepted,
		"review27/neg-mcs.pdf": accepted, "review27/neg-movie.pdf": accepted,
		"review27/neg-rf-only.pdf": accepted, "review27/neg-trans-aa.pdf": accepted,
	}
	// Files refused with another kind than ActiveContent.
	refusedAs := map[string]Kind{
		"review28/enc-uri.pdf": Encrypted, "review28/enc-uri-vb.pdf": Encrypted, "review28/enc-uri-ctl.pdf": Encrypted,
	}
	var files []string
	for _, dir := range []string{"review20", "review21", "review22", "review23", "review24", "review25", "review26", "review27", "review28", "review29"} {
		found, err := filepath.Glob(filepath.Join("testdata", dir, "*.pdf"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, found...)
	}
	if len(files) != 171 {
		t.Fatalf("%d files in testdata/review20 to 29, want 171", len(files))
	}
	for _, f := range files {
		name := filepath.Join(filepath.Base(filepath.Dir(f)), filepath.Base(f))
		t.Run(name, func(t *testing.T) {
			pdf, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			got := readersFind(t, pdf)
			var found []string
			for _, what := range []string{"EF", "JS", "JavaScript", "media file", "script"} {
				found = append(found, readersThatFind(got, what)...)
			}
			want, safe := harmless[name]
			refusal, other := refusedAs[name]
			if !other {
				refusal = ActiveContent
			}
			switch code := fileKind(t, pdf, testLimits()); {
			case safe && (code != want || len(found) > 0):
				t.Fatalf("the check: %q, the readers: %v; want %q, nothing found", code, got, want)
			case !safe && code != refusal:
				t.Fatalf("the check: %q, want %q (the readers find %v)", code, refusal, got)
			case !safe && len(found) == 0:
				t.Fatalf("no reader finds what the file hides (%v): it proves nothing", got)
			}
			if strings.HasPrefix(name, "review27") || strings.HasPrefix(name, "review28") || strings.HasPrefix(name, "review29") {
				return
			}
			if !safe {
				want = ActiveContent
			}
			renamed := bytes.ReplaceAll(pdf, []byte("/Rendition"), []byte("/Rendxtion"))
			if code := fileKind(t, renamed, testLimits()); code != want {
				t.Fatalf("with /Rendition renamed, the check: %q, want %q", code, want)
			}
		})
	}
}

// TestASCIIObjectStreamOpeningAsZlib: "8O" is ASCII85 text and a zlib
// header too, so a viewer whose /Filter holds FlateDecode alone (the
// ASCII85 name written elsewhere) could inflate the text as it is, which
// the check never does: an ASCII-then-Flate object stream whose text
// opens so is refused (real ASCII85 of zlib data opens with G).
func TestASCIIObjectStreamOpeningAsZlib(t *testing.T) {
	p := newXrefPDF()
	p.objStm(5, " /Filter [ /ASCII85Decode /FlateDecode ]", scriptMembers("<< /S /GoTo /D [ 2 0 R /Fit ] >>"), func(b []byte) []byte {
		return append([]byte("8O"), asA85(deflate(b))...)
	})
	pdf := p.finish(9, " /Root 1 0 R")
	_, fe := inspectBytes(pdf)
	if fe == nil || fe.Kind != ActiveContent || !strings.Contains(fe.Detail, "zlib") {
		t.Fatalf("got %+v, want it refused as text that opens as zlib data", fe)
	}
}
