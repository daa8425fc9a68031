package domain

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	pdfcpu "github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// The PDF check, differentially against an independent reader: pdfcpu
// reads the file as a viewer does (cross-reference table or stream,
// object streams decoded with their filters and predictors, references
// resolved, a broken file repaired) and lists the names of contract §7
// in every object it read. Whatever it finds, the check must refuse.
// pdfcpu is a test dependency only: no file of the service imports it.

// oracleActive are contract §7's names, spelled here again on purpose:
// the oracle shares no code with the check.
var oracleActive = []string{"JavaScript", "JS", "Launch", "EmbeddedFile", "RichMedia", "XFA"}

var pdfcpuConfig = sync.OnceValue(func() *model.Configuration {
	model.ConfigPath = "disable" // no configuration directory written or read
	conf := model.NewDefaultConfiguration()
	conf.ValidationMode = model.ValidationRelaxed
	return conf
})

// pdfcpu v0.15.0 follows a /Filter or /DecodeParms reference to a stream
// object by parsing that stream, whose own filters it sets up again: a
// stream that names itself (or another that names it) recurses until the
// stack overflows, a fatal error that recover does not catch. Such
// inputs are skipped (pdfcpuRecurses), which never decides a case
// against the check. The scan decodes #xx escapes first, as pdfcpu does.
var (
	pdfObjStart   = regexp.MustCompile(`((?:\d+\s*)+)obj\b`)
	pdfNumber     = regexp.MustCompile(`\d+`)
	pdfFilterRefs = regexp.MustCompile(`/(?:DecodeParms|DP|Filter|F)[^0-9]{0,40}((?:\d+\s+\d+\s*R[\s\]]*)+)`)
	pdfRef        = regexp.MustCompile(`(\d+)\s+\d+\s*R`)
	pdfEscape     = regexp.MustCompile(`#[0-9A-Fa-f]{2}`)
)

func pdfcpuRecurses(pdf []byte) bool {
	pdf = pdfEscape.ReplaceAllFunc(pdf, func(h []byte) []byte {
		b, _ := strconv.ParseUint(string(h[1:]), 16, 8)
		return []byte{byte(b)}
	})
	// An object's text runs to the next definition: a missing endobj
	// still makes it a stream when "stream" follows. Every number in
	// the run before obj may be its number (pdfcpu's repair reads
	// "7 5 0 obj" as object 7).
	streams := map[string]bool{}
	starts := pdfObjStart.FindAllSubmatchIndex(pdf, -1)
	for i, m := range starts {
		end := len(pdf)
		if i+1 < len(starts) {
			end = starts[i+1][0]
		}
		if bytes.Contains(pdf[m[1]:end], []byte("stream")) {
			for _, n := range pdfNumber.FindAll(pdf[m[2]:m[3]], -1) {
				streams[string(n)] = true
			}
		}
	}
	for _, m := range pdfFilterRefs.FindAllSubmatch(pdf, -1) {
		for _, r := range pdfRef.FindAllSubmatch(m[1], -1) {
			if streams[string(r[1])] {
				return true
			}
		}
	}
	return false
}

// oracleNames returns the active names pdfcpu finds in the objects it
// reads from pdf, as keys or values, #xx escapes decoded; err when it
// cannot read the file (or fails inside).
func oracleNames(pdf []byte) (found []string, err error) {
	defer func() {
		if r := recover(); r != nil {
			found, err = nil, fmt.Errorf("pdfcpu panicked: %v", r)
		}
	}()
	c, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conf := *pdfcpuConfig()
	ctx, err := pdfcpu.ReadWithContext(c, bytes.NewReader(pdf), &conf)
	if err != nil {
		return nil, err
	}
	note := func(name string) {
		if d, err := types.DecodeName(name); err == nil {
			name = d
		}
		if slices.Contains(oracleActive, name) && !slices.Contains(found, name) {
			found = append(found, name)
		}
	}
	var walk func(o types.Object, depth int)
	walk = func(o types.Object, depth int) {
		if depth > 100 {
			return
		}
		switch v := o.(type) {
		case types.Name:
			note(string(v))
		case types.Dict:
			for k, e := range v {
				note(k)
				walk(e, depth+1)
			}
		case types.Array:
			for _, e := range v {
				walk(e, depth+1)
			}
		case types.StreamDict:
			walk(v.Dict, depth+1)
		case types.ObjectStreamDict:
			walk(v.Dict, depth+1)
		case types.XRefStreamDict:
			walk(v.Dict, depth+1)
		}
	}
	for _, e := range ctx.XRefTable.Table {
		if e == nil || e.Object == nil {
			continue
		}
		o := e.Object
		if lazy, ok := o.(types.LazyObjectStreamObject); ok {
			// An object of an object stream, decoded when first used.
			if o, err = lazy.DecodedObject(c); err != nil {
				continue
			}
		}
		walk(o, 0)
	}
	return found, nil
}

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
		{"Length as a reference past an early endstream", earlyEndstreamPDF("/Length 8 0 R", true), true},
	}
}

// refusedByCheck reports whether the check refuses pdf.
func refusedByCheck(pdf []byte) bool {
	_, fe := inspect(base64.StdEncoding.EncodeToString(pdf), DefaultFileRules())
	return fe != nil
}

// TestPDFAgainstOracle runs the seed corpus of FuzzPDFAgainstOracle in
// every go test: each file in which pdfcpu finds an active name is
// refused, and pdfcpu reads every seed and finds the names the seeds
// were built with (an oracle that reads nothing would prove nothing).
func TestPDFAgainstOracle(t *testing.T) {
	for _, s := range oracleSeeds() {
		t.Run(s.name, func(t *testing.T) {
			if pdfcpuRecurses(s.pdf) {
				t.Fatal("the seed would be skipped by the fuzz target")
			}
			found, err := oracleNames(s.pdf)
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

// TestPDFOracleSkipsWhatCrashesIt: the inputs that overflowed pdfcpu's
// stack in the first fuzzing runs (an object stream whose /DecodeParms is
// itself; the same under a number pdfcpu's repair reads otherwise), and
// the same through another stream or an escaped key, are skipped.
func TestPDFOracleSkipsWhatCrashesIt(t *testing.T) {
	self := "7 0 obj\n<< /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode /DecodeParms 7 0 R /Length 3 >>\nstream\nabc\nendstream\nendobj\n"
	other := "5 0 obj\n<< /Filter [ /FlateDecode ] /D#50 [ 6 0 R ] >>\nstream\nabc\nendstream\nendobj\n6 0 obj << /Length 0 >>\nstream\n"
	repaired := "7 5 0 obj<</Filter//DecodeParms 7 0 R>>stream\n\nendstream\nendobj\n"
	for _, pdf := range []string{self, other, repaired} {
		if !pdfcpuRecurses([]byte("%PDF-1.5\n" + pdf + "%%EOF\n")) {
			t.Fatalf("not skipped: %q", pdf)
		}
	}
}

// FuzzPDFAgainstOracle mutates the seeds (and any PDF): a file in which
// pdfcpu finds an active name is never accepted by the check.
func FuzzPDFAgainstOracle(f *testing.F) {
	for _, s := range oracleSeeds() {
		f.Add(s.pdf)
	}
	f.Fuzz(func(t *testing.T, pdf []byte) {
		if len(pdf) > 1<<20 {
			return
		}
		if pdfcpuRecurses(pdf) {
			return
		}
		found, err := oracleNames(pdf)
		if err != nil || len(found) == 0 {
			return
		}
		if !refusedByCheck(pdf) {
			t.Fatalf("pdfcpu finds %v; the check accepts the file", found)
		}
	})
}
