package domain_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/fixture"
)

var now = time.Date(2026, 11, 26, 10, 20, 30, 0, time.UTC)

func members(t *testing.T, body map[string]any) []domain.RawField {
	t.Helper()
	return fixture.Members(body)
}

func problems(t *testing.T, err error) []domain.Problem {
	t.Helper()
	var de *domain.Error
	if !errors.As(err, &de) {
		t.Fatalf("error %v is not a *domain.Error", err)
	}
	return de.Problems
}

func TestMapFullReport(t *testing.T) {
	pdf := fixture.PDF(2048)
	rep, err := domain.DefaultCatalogue().MapReport(members(t, fixture.FullBody(now, "CR-1", pdf)), fixture.FileRules(), now)
	if err != nil {
		t.Fatalf("MapReport: %v", err)
	}
	if got := rep.Len(); got != 91 {
		t.Errorf("%d values, want 91 (every field but the file)", got)
	}
	if rep.File == nil || rep.File.Ext != "pdf" || string(readAll(t, rep.File)) != string(pdf) || rep.File.Size != int64(len(pdf)) {
		t.Fatalf("file not decoded: %+v", rep.File)
	}
	if got := func() string { v, _ := rep.Get("monto_aprobado"); return v.Dec.String() }(); got != "14334900.00" {
		t.Errorf("monto_aprobado = %s", got)
	}
}

func TestMapMinimalReport(t *testing.T) {
	rep, err := domain.DefaultCatalogue().MapReport(members(t, fixture.Minimal(now, "CR-1")), fixture.FileRules(), now)
	if err != nil {
		t.Fatalf("MapReport: %v", err)
	}
	if rep.Len() != 12 || rep.File != nil {
		t.Errorf("%d values, file %v; want the 12 required and no file", rep.Len(), rep.File)
	}
}

func TestMapListsEveryProblem(t *testing.T) {
	body := fixture.Minimal(now, "CR-1")
	delete(body, "Primer Nombre")
	body["Primer Apellido"] = ""
	body["Campo Inventado"] = "x"
	body["Estrato"] = 9
	body["Fecha de Desembolso"] = now.AddDate(0, 0, 2).Format("2006-01-02")
	body["Valor Desembolsado"] = "20000000"
	body["Fecha de Vencimiento"] = "2020-01-01"
	ms := members(t, body)
	// Three spellings of one field: two duplicates.
	ms = append(ms, domain.RawField{Key: "NUMERO DE CREDITO", Value: fixture.Raw("CR-2")}, domain.RawField{Key: "numero_credito", Value: fixture.Raw("CR-3")})
	_, err := domain.DefaultCatalogue().MapReport(ms, fixture.FileRules(), now)
	if !errors.Is(err, domain.ErrInvalidInput) {
		t.Fatalf("err = %v, want ErrInvalidInput", err)
	}
	got := map[string]string{}
	for _, p := range problems(t, err) {
		got[p.Field+"/"+p.Code] = p.Message
	}
	for _, want := range []string{
		"Primer Nombre/required", "Primer Apellido/required", "Campo Inventado/unknown_field",
		"Estrato/out_of_range", "Fecha de Desembolso/out_of_range", "Valor Desembolsado/inconsistent",
		"Número de Crédito/duplicate_field",
	} {
		if _, ok := got[want]; !ok {
			t.Errorf("missing problem %s; got %v", want, got)
		}
	}
	// Fecha de Vencimiento is before a desembolso date that is itself bad:
	// still compared, since both parsed.
	if _, ok := got["Fecha de Vencimiento/inconsistent"]; !ok {
		t.Errorf("missing Fecha de Vencimiento/inconsistent; got %v", got)
	}
	if n := len(problems(t, err)); n != 9 {
		t.Errorf("%d problems, want 9: %v", n, got)
	}
}

func TestMapIdentificationFollowsType(t *testing.T) {
	for _, tt := range []struct {
		tipo, id string
		ok       bool
	}{
		{"CC", "1020304050", true},
		{"CC", "AB123456", false},
		{"PA", "AB123456", true},
		{"41", "AB123456", true},
		{"NIT", "900.123.456-8", true},
		{"PPT", "X-123-456", true},
	} {
		body := fixture.Minimal(now, "CR-1")
		body["Tipo de identificación"], body["Identificación del cliente"] = tt.tipo, tt.id
		_, err := domain.DefaultCatalogue().MapReport(members(t, body), fixture.FileRules(), now)
		if (err == nil) != tt.ok {
			t.Errorf("tipo %s id %s: err %v, want ok=%v", tt.tipo, tt.id, err, tt.ok)
		}
	}
}

func TestMapFile(t *testing.T) {
	pdf := fixture.PDF(600)
	b64 := base64.StdEncoding.EncodeToString(pdf)
	wrapped := ""
	for i := 0; i < len(b64); i += 76 {
		wrapped += b64[i:min(i+76, len(b64))] + "\r\n"
	}
	rules, err := domain.NewFileRules([]string{"pdf", "png"}, 1000, 100_000_000, false)
	if err != nil {
		t.Fatal(err)
	}
	hugePNG := append([]byte{}, fixture.PNG...)
	copy(hugePNG[16:24], "\x00\x01\x86\xa0\x00\x01\x86\xa0") // IHDR: 100000×100000
	for _, tt := range []struct {
		name string
		dto  any
		ext  string // "" when a problem is expected
		code string
	}{
		{"pdf", map[string]any{"Base64String": b64}, "pdf", ""},
		{"member names any case", map[string]any{"base64string": b64, "EXTENSION": ".PDF"}, "pdf", ""},
		{"no padding", map[string]any{"Base64String": strings.TrimRight(b64, "=")}, "pdf", ""},
		{"line breaks", map[string]any{"Base64String": wrapped}, "pdf", ""},
		{"data URL", map[string]any{"Base64String": "data:application/pdf;base64," + b64}, "pdf", ""},
		{"png", map[string]any{"Base64String": base64.StdEncoding.EncodeToString(fixture.PNG), "ContentType": "image/png"}, "png", ""},
		{"unknown members ignored", map[string]any{"Base64String": b64, "Tamano": 12}, "pdf", ""},
		{"null file", nil, "", ""},
		{"not an object", "JVBERi0=", "", domain.CodeInvalidType},
		{"no Base64String", map[string]any{"FileName": "a.pdf"}, "", domain.CodeInvalidFile},
		{"empty", map[string]any{"Base64String": ""}, "", domain.CodeInvalidFile},
		{"bad base64", map[string]any{"Base64String": "%%%%"}, "", domain.CodeInvalidFile},
		{"too large", map[string]any{"Base64String": base64.StdEncoding.EncodeToString(fixture.PDF(2000))}, "", domain.CodeFileTooLarge},
		{"not allowed type", map[string]any{"Base64String": base64.StdEncoding.EncodeToString([]byte("\xFF\xD8\xFF\xE0 jpeg"))}, "", domain.CodeFileType},
		{"PHP polyglot declared as PDF", map[string]any{"Base64String": base64.StdEncoding.EncodeToString([]byte("%PDF-1.4\n<?PHP system($_GET['c']); ?>")), "Extension": "pdf"}, "", domain.CodeFileType},
		{"HTML polyglot", map[string]any{"Base64String": base64.StdEncoding.EncodeToString([]byte("%PDF-1.4\n<HTML><body onload=x>"))}, "", domain.CodeFileType},
		{"SVG in a PNG", map[string]any{"Base64String": base64.StdEncoding.EncodeToString(append(append([]byte{}, fixture.PNG...), "<svg onload=alert(1)>"...))}, "", domain.CodeFileType},
		{"SVG declared as PDF", map[string]any{"Base64String": base64.StdEncoding.EncodeToString([]byte("<svg xmlns='http://www.w3.org/2000/svg'/>")), "Extension": "pdf"}, "", domain.CodeFileType},
		{"unknown type", map[string]any{"Base64String": base64.StdEncoding.EncodeToString([]byte("<?php system($_GET['c']);"))}, "", domain.CodeFileType},
		{"extension contradicts", map[string]any{"Base64String": b64, "Extension": "png"}, "", domain.CodeFileMismatch},
		{"100 KB extension", map[string]any{"Base64String": b64, "Extension": strings.Repeat("x", 100_000)}, "", domain.CodeFileMismatch},
		{"file name contradicts", map[string]any{"Base64String": b64, "FileName": "shell.php"}, "", domain.CodeFileMismatch},
		{"content type contradicts", map[string]any{"Base64String": b64, "ContentType": "text/html"}, "", domain.CodeFileMismatch},
		{"member not text", map[string]any{"Base64String": 12}, "", domain.CodeInvalidType},
		{"PDF with a script", map[string]any{"Base64String": base64.StdEncoding.EncodeToString([]byte("%PDF-1.4\n1 0 obj << /OpenAction << /S /JavaScript /JS (x) >> >> endobj\n%%EOF\n"))}, "", domain.CodeFileActiveContent},
		{"PDF cut short", map[string]any{"Base64String": base64.StdEncoding.EncodeToString(pdf[:300])}, "", domain.CodeFileTruncated},
		{"PNG of 10^10 pixels", map[string]any{"Base64String": base64.StdEncoding.EncodeToString(hugePNG)}, "", domain.CodeFileImageTooLarge},
	} {
		t.Run(tt.name, func(t *testing.T) {
			body := fixture.Minimal(now, "CR-1")
			body["Documento Soporte"] = tt.dto
			rep, err := domain.DefaultCatalogue().MapReport(members(t, body), rules, now)
			if tt.code != "" {
				ps := problems(t, err)
				if len(ps) != 1 || ps[0].Code != tt.code || ps[0].Field != "Documento Soporte" {
					t.Fatalf("problems %+v, want one %s on Documento Soporte", ps, tt.code)
				}
				if len(ps[0].Message) > 400 {
					t.Errorf("a %d-byte message: what the client sent is echoed unclipped", len(ps[0].Message))
				}
				if tt.code == domain.CodeFileTooLarge && !errors.Is(err, domain.ErrTooLarge) {
					t.Errorf("too large file: err %v is not ErrTooLarge", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("MapReport: %v", err)
			}
			if tt.ext == "" {
				if rep.File != nil {
					t.Fatalf("file %+v, want none", rep.File)
				}
				return
			}
			if rep.File == nil || rep.File.Ext != tt.ext {
				t.Fatalf("file %+v, want ext %s", rep.File, tt.ext)
			}
		})
	}
}

func TestFileName(t *testing.T) {
	at := time.Date(2026, 11, 26, 10, 20, 30, 123456789, time.FixedZone("COT", -5*3600))
	if got := domain.FileName("CR-1", at, "pdf"); got != "partner_CR-1_20261126T152030123Z.pdf" {
		t.Errorf("FileName = %s", got)
	}
	// The upload stores list the service's files by this rule.
	for name, want := range map[string]bool{
		domain.FileName("CR-1", at, "pdf"): true, "partner_": true,
		"probe-1": false, ".partner_CR-1_x.pdf": false, "Partner_CR-1_x.pdf": false, "": false,
	} {
		if got := domain.IsUploadName(name); got != want {
			t.Errorf("IsUploadName(%q) = %v, want %v", name, got, want)
		}
	}
}

func readAll(t *testing.T, f *domain.File) []byte {
	t.Helper()
	data, err := io.ReadAll(f.Reader())
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestActiveContentAcrossChunks: a marker split across the decoder's
// 64 KiB chunks is still found.
func TestActiveContentAcrossChunks(t *testing.T) {
	for _, at := range []int{64<<10 - 3, 64<<10 - 1, 64 << 10, 128<<10 - 7} {
		data := fixture.PDF(200 << 10)
		copy(data[at:], "<script>")
		body := fixture.Minimal(now, "CR-1")
		body["Documento Soporte"] = map[string]any{"Base64String": base64.StdEncoding.EncodeToString(data)}
		_, err := domain.DefaultCatalogue().MapReport(members(t, body), fixture.FileRules(), now)
		if ps := problems(t, err); len(ps) != 1 || ps[0].Code != domain.CodeFileType {
			t.Errorf("marker at %d: %+v", at, ps)
		}
	}
}

// TestDecimalsAsStrings: with the v1 option a money or rate value sent as
// a JSON number is a problem naming the field (every one listed, beside
// the others); the same report with strings maps, and the legacy reading
// takes both.
func TestDecimalsAsStrings(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	cat := domain.DefaultCatalogue()
	body := fixture.Minimal(now, "CR-V1-0001")
	body["Monto Aprobado"] = json.Number("14334900.55")
	body["Tasa de Interés Nominal Mes Vencido (%)"] = json.Number("1.85")
	v1 := domain.MapOptions{DecimalsAsStrings: true}
	_, err := cat.MapReportWith(fixture.Members(body), fixture.FileRules(), now, v1)
	var de *domain.Error
	if !errors.As(err, &de) {
		t.Fatalf("MapReportWith = %v; want the problems", err)
	}
	got := map[string]string{}
	for _, p := range de.Problems {
		got[p.Field] = p.Code
	}
	for _, f := range []string{"Monto Aprobado", "Tasa de Interés Nominal Mes Vencido (%)"} {
		if got[f] != domain.CodeNumberNotAllowed {
			t.Errorf("%s: %q, want %s (all problems: %v)", f, got[f], domain.CodeNumberNotAllowed, got)
		}
	}
	if _, err := cat.MapReport(fixture.Members(body), fixture.FileRules(), now); err != nil {
		t.Fatalf("the legacy reading refused numbers: %v", err)
	}
	body["Monto Aprobado"], body["Tasa de Interés Nominal Mes Vencido (%)"] = "14334900.55", "1.85"
	rep, err := cat.MapReportWith(fixture.Members(body), fixture.FileRules(), now, v1)
	if err != nil {
		t.Fatalf("strings under the v1 option: %v", err)
	}
	if v, _ := rep.Get("monto_aprobado"); v.Dec.String() != "14334900.55" {
		t.Errorf("monto_aprobado = %s", v.Dec)
	}
}
