package filecheck

import (
	"os"
	"path/filepath"
	"testing"
)

// TestReviewFiles: the files of the twentieth session's two attacker
// reviews (testdata/review20 and review21, with the generators that built
// them). Each hides a file specification with /EF (filter-*, a script)
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
// so it is read as it is too. Every one is refused, and a reader no one
// here wrote finds what it hides; harmless lists the files that hide
// nothing any reader finds, and whether the check takes them.
func TestReviewFiles(t *testing.T) {
	harmless := map[string]Kind{
		"review20/visible-short-nofirst.pdf": accepted, // an /N stream read by a short /Length: MuPDF stops there
		// FlateDecode data with no zlib header, which no writer makes:
		// read as it is too, so refused for what it spells.
		"review21/b-control.pdf": ActiveContent,
		"review21/m-control.pdf": ActiveContent,
	}
	var files []string
	for _, dir := range []string{"review20", "review21"} {
		found, err := filepath.Glob(filepath.Join("testdata", dir, "*.pdf"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, found...)
	}
	if len(files) != 37 {
		t.Fatalf("%d files in testdata/review20 and review21, want 37", len(files))
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
			for _, what := range []string{"EF", "JavaScript", "Screen annotation", "script"} {
				found = append(found, readersThatFind(got, what)...)
			}
			want, safe := harmless[name]
			switch code := fileKind(t, pdf, testLimits()); {
			case safe && (code != want || len(found) > 0):
				t.Fatalf("the check: %q, the readers: %v; want %q, nothing found", code, got, want)
			case !safe && code != ActiveContent:
				t.Fatalf("the check: %q, want %q (the readers find %v)", code, ActiveContent, got)
			case !safe && len(found) == 0:
				t.Fatalf("no reader finds what the file hides (%v): it proves nothing", got)
			}
		})
	}
}
