package filecheck

import (
	"slices"
	"strings"
	"testing"

	"github.com/lender/disbursementd/test/pdforacle"
)

// The check against the readers people open PDFs with (test/pdforacle):
// pdf.js, MuPDF and qpdf, beside pdfcpu (pdf_oracle_test.go). Whatever
// any of them reads an action, a script or an attachment from, the check
// refuses. A reader that is not installed fails the tests under CI=true
// (.ci/run installs them) and skips them otherwise.

// readersFind asks pdfcpu and every reader what they find in pdf: by
// reader, the findings, or the error in words.
func readersFind(tb testing.TB, pdf []byte) map[string][]string {
	tb.Helper()
	got := map[string][]string{}
	found, err := theOracle.ask(pdf)
	got["pdfcpu"] = findingsOr(found, err)
	for _, r := range pdforacle.Readers() {
		pdforacle.NeedReader(tb, r)
		found, err := r.Find(pdf)
		got[r.Name] = findingsOr(found, err)
	}
	return got
}

func findingsOr(found []string, err error) []string {
	if err != nil {
		return []string{"error: " + err.Error()}
	}
	return found
}

// readersThatFind are the readers whose findings hold one that contains
// want (in any case).
func readersThatFind(got map[string][]string, want string) []string {
	var who []string
	for r, found := range got {
		if slices.ContainsFunc(found, func(f string) bool {
			return !strings.HasPrefix(f, "error: ") && strings.Contains(strings.ToLower(f), strings.ToLower(want))
		}) {
			who = append(who, r)
		}
	}
	slices.Sort(who)
	return who
}

// TestPDFAgainstReaders runs the seeds of FuzzPDFAgainstOracle through
// pdf.js, MuPDF and qpdf: each file any of them finds something in is
// refused, and the plain script seed is found by every one of them (a
// reader that reads nothing would prove nothing).
func TestPDFAgainstReaders(t *testing.T) {
	for _, s := range oracleSeeds() {
		t.Run(s.name, func(t *testing.T) {
			got := readersFind(t, s.pdf)
			refused := refusedByCheck(s.pdf)
			for r, found := range got {
				if len(found) > 0 && !strings.HasPrefix(found[0], "error: ") && !refused {
					t.Errorf("%s finds %v; the check accepts the file", r, found)
				}
			}
			if s.name == "plain, JavaScript" {
				for r, found := range got {
					if len(found) == 0 || strings.HasPrefix(found[0], "error: ") {
						t.Errorf("%s finds nothing in a plain script: %v", r, found)
					}
				}
			}
		})
	}
}
