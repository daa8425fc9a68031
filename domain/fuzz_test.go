package domain

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"io"
	"testing"
	"time"
)

func minimalMembers() []RawField {
	s := func(k, v string) RawField { return RawField{Key: k, Value: RawValue{Kind: RawString, Text: v}} }
	return []RawField{
		s("Numero de Convenio", "CV-1"), s("Tipo de identificación", "CC"), s("Identificación del cliente", "1020304050"),
		s("Primer Nombre", "Ana"), s("Primer Apellido", "Pérez"), s("Número de Crédito", "CR-1"),
		s("Monto Aprobado", "100.00"), s("Plazo (meses)", "12"), s("Tasa de Interés Nominal Mes Vencido (%)", "1.5"),
		s("Valor Cuota Total", "10"), s("Fecha de Desembolso", "2026-11-26"), s("Valor Desembolsado", "100"),
	}
}

// FuzzMapReport: one extra member of any key, kind and text. The mapping
// never panics; it accepts the report or lists problems that each name a
// field; an accepted numero_credito is always a safe file name.
func FuzzMapReport(f *testing.F) {
	f.Add("Observaciones", uint8(RawString), "hola")
	f.Add("Número de Crédito", uint8(RawString), "../../etc/passwd")
	f.Add("NUMERO DE CREDITO", uint8(RawNumber), "1e400")
	f.Add("Salario Básico", uint8(RawNumber), "-0")
	f.Add("Fecha de Nacimiento", uint8(RawString), "1987-02-29T25:61:61Z")
	f.Add("Codigo DANE Ciudad Residencia", uint8(RawNumber), "5001")
	f.Add("Documento Soporte", uint8(RawObject), "")
	cat := DefaultCatalogue()
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, key string, kind uint8, text string) {
		v := RawValue{Kind: RawKind(kind % 6), Text: text, Bool: len(text)%2 == 0}
		if v.Kind == RawObject {
			v.Members = []RawField{{Key: "Base64String", Value: RawValue{Kind: RawString, Text: text}}}
		}
		rep, err := cat.MapReport(append(minimalMembers(), RawField{Key: key, Value: v}), DefaultFileRules(), now)
		if err != nil {
			var de *Error
			if !errors.As(err, &de) || len(de.Problems) == 0 || !(errors.Is(err, ErrInvalidInput) || errors.Is(err, ErrTooLarge)) {
				t.Fatalf("error %v has no problems or an unexpected kind", err)
			}
			for _, p := range de.Problems {
				if p.Field == "" && key != "" || p.Code == "" || p.Message == "" {
					t.Fatalf("problem without field, code or message: %+v", p)
				}
			}
			return
		}
		if !ValidCreditNumber(rep.Text("numero_credito")) {
			t.Fatalf("accepted unsafe numero_credito %q", rep.Text("numero_credito"))
		}
	})
}

// FuzzParseFile: any Base64String and declared extension. An accepted file
// is of an allowed type by its content, carries no active content, and is
// within the size limit.
func FuzzParseFile(f *testing.F) {
	f.Add(base64.StdEncoding.EncodeToString([]byte("%PDF-1.4\n%%EOF")), "pdf")
	f.Add("data:application/pdf;base64,JVBERi0xLjQK", "")
	f.Add(base64.StdEncoding.EncodeToString([]byte("%PDF-1.4 <?php echo 1; ?>")), "pdf")
	f.Add("iVBORw0KGgo=", "png")
	f.Add("JVBERi0\r\nxLjQ=", "PDF")
	f.Add("!!!!", "")
	for _, seed := range [][]byte{
		onePagePDF(" /OpenAction << /S /J#61vaScript >>"), objStmPDF(""), objStmPDF(" /AA << /O << /JS (x) >> >>"),
		goPNG(4, 3), noiseJPEG(8, 8, 1), handTIFF(binary.LittleEndian, 4, 3, false, true), handTIFF(binary.BigEndian, 4, 3, true, false),
	} {
		f.Add(base64.StdEncoding.EncodeToString(seed), "")
	}
	rules := FileRules{Allowed: []string{"pdf", "png", "jpg", "tif"}, MaxBytes: 1 << 16}
	f.Fuzz(func(t *testing.T, b64, ext string) {
		raw := RawValue{Kind: RawObject, Members: []RawField{
			{Key: "Base64String", Value: RawValue{Kind: RawString, Text: b64}},
			{Key: "Extension", Value: RawValue{Kind: RawString, Text: ext}},
		}}
		// Where block boundaries fall never changes the outcome (but for
		// which of two problems is found first when one is bad base64: a
		// block is decoded whole before its bytes are checked).
		_, big := inspect(b64, rules)
		_, small := inspectIn(b64, rules, 3*(1+len(ext)%40))
		if (big == nil) != (small == nil) || big != nil && *big != *small && big.code != CodeInvalidFile && small.code != CodeInvalidFile {
			t.Fatalf("in one block: %+v; in blocks of %d bytes: %+v", big, 3*(1+len(ext)%40), small)
		}
		file, fe := parseFile(raw, rules)
		if fe != nil {
			if fe.code == "" || fe.msg == "" {
				t.Fatalf("problem without code or message: %+v", fe)
			}
			return
		}
		data, err := io.ReadAll(file.Reader())
		if err != nil || int64(len(data)) != file.Size || sha256.Sum256(data) != file.SHA256 {
			t.Fatalf("Reader gives %d bytes (%v), inspected %d", len(data), err, file.Size)
		}
		if t2, ok := sniff(data); !ok || t2.ext != file.Ext || !contains(rules.Allowed, file.Ext) {
			t.Fatalf("accepted a file of type %q not allowed by content", file.Ext)
		}
		if activeContent(data) != "" || int64(len(data)) > rules.MaxBytes {
			t.Fatal("accepted active content or an oversized file")
		}
		checkAccepted(t, file.Ext, data)
	})
}

// checkAccepted fails when an accepted file shows, by a plain search, what
// contract §7 refuses: an active PDF name written without escapes (of
// those that count even inside stream data), a PDF without %%EOF at its
// end, a PNG without IEND, a JPEG without FFD9.
func checkAccepted(t *testing.T, ext string, data []byte) {
	t.Helper()
	switch ext {
	case "pdf":
		if !bytes.Contains(data[max(0, len(data)-pdfTail):], []byte("%%EOF")) {
			t.Fatal("accepted a PDF without an end-of-file marker at its end")
		}
		for _, name := range []string{"/JavaScript", "/Launch", "/EmbeddedFile", "/RichMedia", "/XFA"} {
			for i := bytes.Index(data, []byte(name)); i >= 0; {
				if end := i + len(name); end == len(data) || pdfEnds(data[end]) {
					t.Fatalf("accepted a PDF with %s", name)
				}
				j := bytes.Index(data[i+1:], []byte(name))
				if j < 0 {
					break
				}
				i += 1 + j
			}
		}
	case "png":
		if !bytes.Contains(data, []byte("IEND")) {
			t.Fatal("accepted a PNG without IEND")
		}
	case "jpg":
		if !bytes.Contains(data, []byte{0xFF, 0xD9}) {
			t.Fatal("accepted a JPEG without FFD9")
		}
	}
}
