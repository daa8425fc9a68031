package filecheck

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/lender/disbursementd/test/pdforacle"
)

// oracleSeed is a generated PDF; wantFound says the oracle must find an
// active name in it (else the seed proves nothing about the check).
type oracleSeed struct {
	name      string
	pdf       []byte
	wantFound bool
}

func oracleSeeds() []oracleSeed {
	inStm := func(dict string, encode func([]byte) []byte, action string, defs ...string) []byte {
		p := newXrefPDF()
		p.objStm(5, dict, scriptMembers(action), encode)
		for i, d := range defs {
			p.obj(7+i, d)
		}
		return p.finish(20, " /Root 1 0 R")
	}
	goTo := "<< /S /GoTo /D [ 2 0 R /Fit ] >>"
	escaped := "<< /S /J#61vaScript /J#53 (app.alert\\(1\\)) >>"
	launch := "<< /S /Launch /F (cmd.exe) >>"
	return []oracleSeed{
		{"plain, JavaScript", onePagePDF(" /OpenAction 4 0 R", jsAction), true},
		{"plain, escaped", onePagePDF(" /OpenAction << /S /J#61vaScript /JS (x) >>"), true},
		{"plain, harmless", onePagePDF(""), false},
		{"object stream, Flate", inStm(" /Filter /FlateDecode", deflate, jsAction), true},
		{"object stream, escaped names", inStm(" /Filter /FlateDecode", deflate, escaped), true},
		{"object stream, Launch", inStm(" /Filter /FlateDecode", deflate, launch), true},
		{"object stream, uncompressed", inStm("", identity, jsAction), true},
		{"object stream, harmless", inStm(" /Filter /FlateDecode", deflate, goTo), false},
		{"predictor inline", inStm(" /Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns 16 >>", predicted, jsAction), true},
		{"DecodeParms as a reference (issue 17)", indirectParmsPDF("<< /Predictor 12 /Columns 16 >>", false), true},
		{"DecodeParms as a reference written before", indirectParmsPDF("<< /Predictor 12 /Columns 16 >>", true), true},
		{"DecodeParms as a reference, escaped names", inStm(" /Filter /FlateDecode /DecodeParms 7 0 R", predicted, escaped, "<< /Predictor 12 /Columns 16 >>"), true},
		{"DecodeParms as a reference, harmless", inStm(" /Filter /FlateDecode /DecodeParms 7 0 R", predicted, goTo, "<< /Predictor 12 /Columns 16 >>"), false},
		{"DecodeParms as a reference without predictor", inStm(" /Filter /FlateDecode /DecodeParms 7 0 R", deflate, jsAction, "<< /Columns 16 >>"), true},
		{"Filter as a reference", inStm(" /Filter 7 0 R", deflate, jsAction, "/FlateDecode"), true},
		{"Filter as a reference, harmless", inStm(" /Filter 7 0 R", deflate, goTo, "/FlateDecode"), false},
		{"Filter and DecodeParms as references", inStm(" /Filter 7 0 R /DecodeParms 8 0 R", predicted, launch, "/FlateDecode", "<< /Predictor 12 /Columns 16 >>"), true},
		{"two filters, hex inside", inStm(" /Filter [ /FlateDecode /ASCIIHexDecode ]", func(b []byte) []byte { return deflate(asHex(b)) }, jsAction), true},
		{"hex, then deflated", inStm(" /Filter [ /ASCIIHexDecode /FlateDecode ]", func(b []byte) []byte { return asHex(deflate(b)) }, jsAction), true},
		{"base 85, then deflated", inStm(" /Filter [ /ASCII85Decode /FlateDecode ]", func(b []byte) []byte { return asA85(deflate(b)) }, launch), true},
		{"base 85, then deflated, harmless", inStm(" /Filter [ /ASCII85Decode /FlateDecode ]", func(b []byte) []byte { return asA85(deflate(b)) }, goTo), false},
		{"Length as a reference past an early endstream", earlyEndstreamPDF("/Length 8 0 R", true), true},
	}
}

// refusedByCheck reports whether the check refuses pdf.
func refusedByCheck(pdf []byte) bool {
	_, fe := Inspect(base64.StdEncoding.EncodeToString(pdf), testLimits())
	return fe != nil
}

// TestPDFAgainstOracle runs the seed corpus of FuzzPDFAgainstOracle in
// every go test: each file in which pdfcpu finds an active name is
// refused, and pdfcpu reads every seed and finds the names the seeds
// were built with (an oracle that reads nothing would prove nothing).
func TestPDFAgainstOracle(t *testing.T) {
	for _, s := range oracleSeeds() {
		t.Run(s.name, func(t *testing.T) {
			found, err := theOracle.ask(s.pdf)
			if err != nil {
				t.Fatalf("pdfcpu cannot read the seed: %v", err)
			}
			if (len(found) > 0) != s.wantFound {
				t.Fatalf("pdfcpu found %v; the seed was built to have them: %v", found, s.wantFound)
			}
			if len(found) > 0 && !refusedByCheck(s.pdf) {
				t.Fatalf("pdfcpu finds %v; the check accepts the file", found)
			}
		})
	}
}

// TestPDFOracleSurvivesPdfcpu: the inputs on which pdfcpu overflowed its
// stack in the first fuzzing runs (an object stream whose /DecodeParms is
// itself, under numbers pdfcpu's repair reads in its own way) cost the
// oracle one answer; it reads the next file as before.
func TestPDFOracleSurvivesPdfcpu(t *testing.T) {
	for _, crash := range []string{
		"7 0 obj\n<< /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode /DecodeParms 7 0 R /Length 3 >>\nstream\nabc\nendstream\nendobj\n",
		"7 5 0 obj<</Filter//DecodeParms 7 0 R>>stream\n\nendstream\nendobj\n",
	} {
		pdf := []byte("%PDF-1.5\n" + crash + "trailer\n<< /Root 7 0 R >>\n%%EOF\n")
		if _, err := theOracle.ask(pdf); err != errOracleDied {
			t.Fatalf("pdfcpu on %q: %v, want it to die (if pdfcpu no longer does, this input is an ordinary seed)", crash, err)
		}
		found, err := theOracle.ask(oracleSeeds()[0].pdf)
		if err != nil || len(found) == 0 {
			t.Fatalf("after the crash: %v, %v", found, err)
		}
	}
}

// FuzzPDFAgainstOracle: a file in which pdfcpu finds an active name, or
// pdf.js, MuPDF or qpdf an action, a script or an attachment
// (pdf_readers_test.go), is never accepted by the check. Two ways in, chosen by the low bit of
// mode: the bytes of a PDF, mutated from the seeds (most mutations break
// the cross-reference offsets, and pdfcpu then reads nothing); or a PDF
// built from parts the fuzzer varies (the action, the object stream's
// dictionary entries, a top-level object 7, the encoding of the stream's
// data), whose frame stays one pdfcpu reads.
func FuzzPDFAgainstOracle(f *testing.F) {
	for _, s := range oracleSeeds() {
		f.Add(uint8(0), s.pdf, "", "", "")
	}
	f.Add(uint8(5), []byte(nil), jsAction, " /Filter /FlateDecode /DecodeParms 7 0 R", "<< /Predictor 12 /Columns 16 >>")
	f.Add(uint8(3), []byte(nil), "<< /S /J#61vaScript /JS (x) >>", " /Filter 7 0 R", "/FlateDecode")
	f.Add(uint8(7), []byte(nil), "<< /S /Launch /F (a) >>", " /Filter [ /FlateDecode 7 0 R ]", "/ASCIIHexDecode")
	f.Add(uint8(1), []byte(nil), "<< /Type /EmbeddedFile >>", "", "<< >>")
	// mode>>1&3 picks the encoding: as it is, deflated, predicted then
	// deflated, hex then deflated; the seeds pair each with its filters.
	for _, r := range pdforacle.Readers() {
		pdforacle.NeedReader(f, r)
	}
	f.Fuzz(func(t *testing.T, mode uint8, raw []byte, action, dict, def string) {
		pdf := raw
		if mode&1 == 1 {
			if len(action)+len(dict)+len(def) > 4096 {
				return
			}
			encode := []func([]byte) []byte{identity, deflate, predicted, func(b []byte) []byte { return deflate(asHex(b)) }}[mode>>1&3]
			p := newXrefPDF()
			p.objStm(5, dict, scriptMembers(action), encode)
			p.obj(7, def)
			pdf = p.finish(20, " /Root 1 0 R")
		}
		// Only a file the check accepts can show it wrong: the readers,
		// slower than the check, read only those.
		if len(pdf) > 1<<20 || refusedByCheck(pdf) {
			return
		}
		for r, found := range readersFind(t, pdf) {
			if len(found) > 0 && !strings.HasPrefix(found[0], "error: ") {
				t.Fatalf("%s finds %v; the check accepts the file", r, found)
			}
		}
	})
}
