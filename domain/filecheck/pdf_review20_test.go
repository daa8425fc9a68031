package filecheck

import (
	"os"
	"path/filepath"
	"testing"
)

// TestReview20Files: the files of the twentieth session's attacker review
// (testdata/review20, built by its generators gen.py and gen2.py there). Each hides a file
// specification with /EF (or, filter-*, a script) where only a viewer
// that reads a stream or a definition its own way reaches it: an
// uncompressed object stream read past its first endstream by a /Length
// longer than that (visible-long), by pdf.js whatever the /Length when
// the stream has /First (visible-short, direct-short), by a /Length
// counted from before 220 spaces (slack), by a /Length or a definition
// whose reference has a comment inside (dictcomment, defcomment), or by a
// definition written "+5 0obj", "000000000005 0obj" or "5 0000000obj"
// (hidden-*, filter-sign, filter-zeros), or by an object stream member
// taken by its index (index). Every one is refused, and a reader no one
// here wrote finds what it hides; visible-short-nofirst (an /N stream
// with a short /Length, no /First) hides nothing any reader finds, and
// passes.
func TestReview20Files(t *testing.T) {
	files, err := filepath.Glob("testdata/review20/*.pdf")
	if err != nil || len(files) != 18 {
		t.Fatalf("%d files in testdata/review20 (%v), want 18", len(files), err)
	}
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			pdf, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			got := readersFind(t, pdf)
			found := readersThatFind(got, "EF")
			found = append(found, readersThatFind(got, "JavaScript")...)
			found = append(found, readersThatFind(got, "Screen annotation")...)
			found = append(found, readersThatFind(got, "script")...)
			harmless := name == "visible-short-nofirst.pdf"
			switch code := fileKind(t, pdf, testLimits()); {
			case harmless && (code != accepted || len(found) > 0):
				t.Fatalf("the check: %q, the readers: %v; want it accepted, nothing found", code, got)
			case !harmless && code != ActiveContent:
				t.Fatalf("the check: %q, want %q (the readers find %v)", code, ActiveContent, got)
			case !harmless && len(found) == 0:
				t.Fatalf("no reader finds what the file hides (%v): it proves nothing", got)
			}
		})
	}
}
