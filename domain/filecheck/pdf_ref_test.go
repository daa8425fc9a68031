package filecheck

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
)

const jsAction = "<< /S /JavaScript /JS (app.alert\\(1\\)) >>"

// predicted deflates data after PNG Sub prediction in rows of 16 bytes.
func predicted(data []byte) []byte { return deflate(pngSub(data, 16)) }

// indirectParmsPDF is issue 17's attack: the catalog's /OpenAction runs a
// script, inside an object stream whose data is predicted and whose
// /DecodeParms saying so is object 7, written before or after it.
func indirectParmsPDF(parms string, before bool) []byte {
	p := newXrefPDF()
	if before {
		p.obj(7, parms)
	}
	p.objStm(5, " /Filter /FlateDecode /DecodeParms 7 0 R", scriptMembers(jsAction), predicted)
	if !before {
		p.obj(7, parms)
	}
	return p.finish(9, " /Root 1 0 R")
}

// earlyEndstreamPDF hides /JS in an uncompressed object stream after an
// "endstream" and a "stream" spelled inside its data; a viewer reads on
// by /Length (length is the dictionary entry, %d the data's length).
func earlyEndstreamPDF(length string, lengthObj bool) []byte {
	p := newXrefPDF()
	members := scriptMembers("<< /JS (app.alert\\(1\\)) >>")
	members[2].pre = "\nendstream\n<< >>\nstream\n"
	var size int
	p.objStm(5, " "+length, members, func(b []byte) []byte { size = len(b); return b })
	if lengthObj {
		p.obj(8, fmt.Sprint(size))
	}
	return p.finish(9, " /Root 1 0 R")
}

// TestPDFIndirectStreamParams: an object stream's /DecodeParms, /Filter
// and /Length are followed however they are written (contract §7, third
// round); the script inside is found or the stream refused.
func TestPDFIndirectStreamParams(t *testing.T) {
	twoFilters := func(filter string, defs ...string) []byte {
		p := newXrefPDF()
		for i, d := range defs {
			p.obj(7+i, d)
		}
		p.objStm(5, " /Filter "+filter, scriptMembers(jsAction), func(b []byte) []byte { return deflate(asHex(b)) })
		return p.finish(9, " /Root 1 0 R")
	}
	refused := map[string][]byte{
		"DecodeParms as a reference to a predictor":        indirectParmsPDF("<< /Predictor 12 /Columns 16 >>", false),
		"DecodeParms as a reference written before":        indirectParmsPDF("<< /Predictor 12 /Columns 16 >>", true),
		"DecodeParms inline":                               pdfWithPredictedObjStm(" /DecodeParms << /Predictor 12 /Columns 16 >>"),
		"DecodeParms as an array of a reference":           pdfWithPredictedObjStm(" /DecodeParms [ 7 0 R ]", "<< /Predictor 12 /Columns 16 >>"),
		"DecodeParms as a reference to a reference":        pdfWithPredictedObjStm(" /DecodeParms 7 0 R", "8 0 R", "<< /Predictor 12 /Columns 16 >>"),
		"DecodeParms reference written 7 0R":               pdfWithPredictedObjStm(" /DecodeParms 7 0R", "<< /Predictor 12 /Columns 16 >>"),
		"DecodeParms abbreviated DP":                       pdfWithPredictedObjStm(" /DP 7 0 R", "<< /Predictor 12 /Columns 16 >>"),
		"Filter array with a reference to a second filter": twoFilters("[ /FlateDecode 7 0 R ]", "/ASCIIHexDecode"),
		"Filter as a reference to two filters":             twoFilters("7 0 R", "[ /FlateDecode /ASCIIHexDecode ]"),
		"Filter as a reference to a reference":             twoFilters("7 0 R", "8 0 R", "[ /FlateDecode /AHx ]"),
		"two filters inline":                               twoFilters("[ /FlateDecode /ASCIIHexDecode ]"),
		"Length as a reference past an early endstream":    earlyEndstreamPDF("/Length 8 0 R", true),
		"Length direct past an early endstream":            earlyEndstreamPDF(fmt.Sprintf("/Length %d", 1000), false),
	}
	for name, pdf := range refused {
		t.Run(name, func(t *testing.T) {
			if code := fileKind(t, pdf, testLimits()); code != ActiveContent {
				t.Fatalf("got %q, want %s", code, ActiveContent)
			}
		})
	}
	harmless := scriptMembers("<< /S /GoTo /D [ 2 0 R /Fit ] >>")
	harmlessPDFs := map[string][]byte{
		"DecodeParms as a reference without a predictor": func() []byte {
			p := newXrefPDF()
			p.obj(7, "<< /Columns 16 >>")
			p.objStm(5, " /Filter /FlateDecode /DecodeParms 7 0 R", harmless, deflate)
			return p.finish(9, " /Root 1 0 R")
		}(),
		"Filter as a reference to FlateDecode": func() []byte {
			p := newXrefPDF()
			p.objStm(5, " /Filter 7 0 R", harmless, deflate)
			p.obj(7, "/FlateDecode")
			return p.finish(9, " /Root 1 0 R")
		}(),
		"Length as a reference, Flate": func() []byte {
			p := newXrefPDF()
			var n int
			p.objStm(5, " /Filter /FlateDecode /Length 8 0 R", harmless, func(b []byte) []byte { b = deflate(b); n = len(b); return b })
			p.obj(8, fmt.Sprint(n))
			return p.finish(9, " /Root 1 0 R")
		}(),
		"Length as a reference, uncompressed": func() []byte {
			p := newXrefPDF()
			var n int
			p.objStm(5, " /Length 8 0 R", harmless, func(b []byte) []byte { n = len(b); return b })
			p.obj(8, fmt.Sprint(n))
			return p.finish(9, " /Root 1 0 R")
		}(),
	}
	for name, pdf := range harmlessPDFs {
		t.Run(name, func(t *testing.T) {
			if code := fileKind(t, pdf, testLimits()); code != accepted {
				t.Fatalf("refused with %s", code)
			}
		})
	}
}

// pdfWithPredictedObjStm is the attack's object stream with the
// dictionary entries parms, and top-level objects 7, 8, ... defs.
func pdfWithPredictedObjStm(parms string, defs ...string) []byte {
	p := newXrefPDF()
	p.objStm(5, " /Filter /FlateDecode"+parms, scriptMembers(jsAction), predicted)
	for i, d := range defs {
		p.obj(7+i, d)
	}
	return p.finish(20, " /Root 1 0 R")
}

// TestPDFReferenceBounds: a reference that cannot be followed to the
// end, within the bounds, refuses the object stream instead of passing
// what it could not inspect.
func TestPDFReferenceBounds(t *testing.T) {
	chain := func(n int, last string) []string {
		defs := make([]string, n)
		for i := range defs[:n-1] {
			defs[i] = fmt.Sprintf("%d 0 R", 8+i)
		}
		defs[n-1] = last
		return defs
	}
	var many strings.Builder
	for i := range maxDefs + 1 {
		fmt.Fprintf(&many, "%d 0 obj [ 1 0 R ] endobj\n", 100+i)
	}
	var runs strings.Builder
	for i := range maxHeldRuns + 1 {
		fmt.Fprintf(&runs, "%d 0 ", 1000+2*i)
	}
	objStmHolding := func(head string) string {
		return "\n6 0 obj\n<< /Type /ObjStm /N 1 /First 4 /Length 10 >>\nstream\n" + head + "<< >>\nendstream\nendobj\n"
	}
	harmless := func(extra string, defs ...string) []byte {
		p := newXrefPDF()
		p.b.WriteString(extra)
		p.objStm(5, " /Filter /FlateDecode /DecodeParms 7 0 R", scriptMembers("<< /S /GoTo /D [ 2 0 R /Fit ] >>"), deflate)
		for i, d := range defs {
			p.obj(7+i, d)
		}
		return p.finish(30, " /Root 1 0 R")
	}
	for _, tt := range []struct {
		name string
		pdf  []byte
		code Kind
	}{
		{"a chain of eight references is followed", harmless("", chain(8, "<< /Columns 4 >>")...), accepted},
		{"a chain of nine is not", harmless("", chain(9, "<< /Columns 4 >>")...), ActiveContent},
		{"a predictor at the end of a chain", pdfWithPredictedObjStm(" /DecodeParms 7 0 R", chain(4, "<< /Predictor 12 /Columns 16 >>")...), ActiveContent},
		{"a cycle", harmless("", "8 0 R", "7 0 R"), ActiveContent},
		{"a definition whose value cannot be read", harmless("", "[ 8 0 R { ]"), ActiveContent},
		// A comment is white space, as viewers read it: MuPDF takes "7 0
		// %c<LF>R" for a reference (the twentieth session's review).
		{"a comment inside a definition's value", harmless("", "8 0 %c\nR", "<< /Predictor 12 >>"), ActiveContent},
		{"two definitions, one with a predictor", harmless("7 0 obj << /Predictor 12 >> endobj\n", "[ << /Columns 4 >> ]"), ActiveContent},
		{"a definition inside a string", harmless("11 0 obj << /X (7 0 obj << /Predictor 12 >>) >> endobj\n", "<< >>"), ActiveContent},
		{"a definition inside a comment", harmless("% 7 0 obj << /Predictor 12 >>\n", "<< >>"), ActiveContent},
		{"the number in an object stream's header", harmless(objStmHolding("7 0 "), "<< >>"), ActiveContent},
		{"a header with a sign", harmless(objStmHolding("+7 0 "), "<< >>"), ActiveContent},
		{"a predictor inside another object stream", harmless(objStmHolding("40 0 << /Predictor 12 >> "), "<< >>"), ActiveContent},
		{"more definitions than kept", harmless(many.String(), "<< >>"), ActiveContent},
		{"more header runs than kept", harmless(objStmHolding(runs.String()), "<< >>"), ActiveContent},
		{"an unnumbered definition with a predictor", harmless("<x> obj << /Predictor 12 >> endobj\n", "<< >>"), ActiveContent},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if code := fileKind(t, tt.pdf, testLimits()); code != tt.code {
				t.Fatalf("got %q, want %q", code, tt.code)
			}
		})
	}
	t.Run("memory of the table", func(t *testing.T) {
		// The same bytes with every definition turned into a comment:
		// the difference is what the table took.
		pdf := harmless(many.String(), "<< >>")
		control := harmless(strings.ReplaceAll(many.String(), " 0 obj", " %0 ob"), "<< >>")
		alloc := func(pdf []byte) uint64 {
			text := base64.StdEncoding.EncodeToString(pdf)
			var before, after runtimeMem
			before.read()
			Inspect(text, testLimits())
			after.read()
			return after.alloc - before.alloc
		}
		// About 250 bytes a kept definition, map growth included.
		if a, c := alloc(pdf), alloc(control); len(pdf) != len(control) || a > c+maxDefs*320 {
			t.Fatalf("%d KiB of PDF: %d KiB allocated, %d KiB without definitions", len(pdf)>>10, a>>10, c>>10)
		} else {
			t.Logf("%d KiB allocated, %d KiB without definitions", a>>10, c>>10)
		}
	})
	t.Run("a value past a long comment", func(t *testing.T) {
		// Read in one window, not in another (the twentieth session's
		// second review): past valueSpan, it cannot be read in any.
		p := newXrefPDF()
		p.objStm(5, " /Filter % "+strings.Repeat("x", 300)+"\n/FlateDecode", scriptMembers("<< /S /GoTo /D [ 2 0 R /Fit ] >>"), deflate)
		if code := fileKind(t, p.finish(9, " /Root 1 0 R"), testLimits()); code != ActiveContent {
			t.Fatalf("got %q", code)
		}
	})
	t.Run("a /DecodeParms value that cannot be read", func(t *testing.T) {
		p := newXrefPDF()
		p.objStm(5, " /Filter /FlateDecode /DecodeParms { 7 0 R", scriptMembers("<< >>"), deflate)
		p.obj(7, "<< >>")
		if code := fileKind(t, p.finish(9, " /Root 1 0 R"), testLimits()); code != ActiveContent {
			t.Fatalf("got %q", code)
		}
	})
}
