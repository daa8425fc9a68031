package long

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/pdforacle"
	"github.com/lender/disbursementd/test/testkit"
)

// corpusRefused are the corpus's files that really carry what contract §7
// refuses, with why: each must be refused with file_active_content, and
// the independent PDF reader (test/pdforacle) must find the name that
// the reason gives in it. Every other file must pass.
var corpusRefused = map[string]string{
	"ps2pdf/attachment.pdf": "/EmbeddedFile: Ghostscript's EMBED pdfmark attached anexo.txt (ps2pdfScans)",
}

// corpusRuled are the corpus's files that carry nothing active but that
// a rule refuses on purpose, with the problem code and the rule: each
// must be refused with that code. Every other file must pass.
var corpusRuled = map[string]string{}

// corpusSource is one source of the corpus, by the name its count is
// printed under.
type corpusSource struct {
	name  string
	files func() ([]corpusFile, error)
}

// corpusNeeds are what the sources read: the tools and Debian's files
// (.ci/run installs them all; the Go modules come from go mod download).
var corpusNeeds = struct{ tools, paths []string }{
	tools: []string{"img2pdf", "ps2pdf", "dwebp", "qpdf"},
	paths: []string{"/usr/share/backgrounds/mate", "/usr/share/backgrounds/gnome", "/usr/share/doc/gnuplot/gnuplot.pdf", "/usr/share/doc/dblatex/manual.pdf.gz"},
}

// TestRealDocumentCorpus: every file of a corpus of real documents goes
// through POST /v1/reports/validate, the same checks as a report's file
// on both paths (domain's file rules, contract §7 and §10), and passes,
// but for the files of corpusRefused and corpusRuled; a tenth of them, and the listed
// ones, are also sent to the legacy path, and stored there. The sources, sampled so that the
// test runs in CI within a few minutes:
//   - pdfcpu v0.15.0's test corpus (PDFs of many producers, and images),
//     from the Go module cache: every file;
//   - golang.org/x/image's and the Go distribution's test images: every
//     file but the decoders' deliberately broken inputs;
//   - Debian's mate-backgrounds (JPEG and PNG): every file;
//   - Debian's gnome-backgrounds (WebP): each written by dwebp as a PNG
//     1280 pixels wide, the dark ones also as a TIFF 960 wide;
//   - TeX manuals that Debian ships (gnuplot-doc, dblatex-doc);
//   - scans made here: img2pdf from 20 photos (mate's 16 JPEGs, the first
//     4 gnome PNGs by name), ps2pdf from PostScript drawing mate's 3
//     smallest JPEGs, and a page of text;
//   - encrypted documents: the first five of pdfcpu's PDFs by name,
//     encrypted by qpdf (qpdfEncryptedDocs), as the corpus has none.
//
// Every PDF that qpdf --is-encrypted names (qpdfEncrypted) must be
// refused with file_encrypted; the others are held as before.
func TestRealDocumentCorpus(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("hundreds of real documents, minutes under -race: not in -short (CI runs it)")
	}
	var missing []string
	for _, tool := range corpusNeeds.tools {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	for _, p := range corpusNeeds.paths {
		if _, err := os.Stat(p); err != nil {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and the corpus lacks %v", missing)
		}
		t.Skipf("the corpus lacks %v (.ci/run installs them)", missing)
	}
	tmp := t.TempDir()
	var photos, small, pdfs []corpusFile // for img2pdf; for ps2pdf; for qpdf
	sources := []corpusSource{
		{"pdfcpu", func() ([]corpusFile, error) {
			files, err := pdfcpuTestdata()
			for _, f := range files {
				if strings.HasSuffix(f.name, ".pdf") {
					pdfs = append(pdfs, f)
				}
			}
			return files, err
		}},
		{"x-image", xImageTestdata},
		{"go-image", goImageTestdata},
		{"mate-backgrounds", func() ([]corpusFile, error) {
			files, err := mateBackgrounds()
			for _, f := range files {
				if strings.HasSuffix(f.name, ".jpg") {
					photos = append(photos, f)
					small = append(small, f)
				}
			}
			slices.SortStableFunc(small, func(a, b corpusFile) int { return len(a.data) - len(b.data) })
			small = small[:min(3, len(small))]
			return files, err
		}},
		{"gnome-backgrounds", func() ([]corpusFile, error) {
			files, err := gnomeBackgrounds(tmp)
			for _, f := range files {
				if strings.HasSuffix(f.name, ".png") && len(photos) < 20 {
					photos = append(photos, f)
				}
			}
			return files, err
		}},
		{"tex-manuals", texManuals},
		{"img2pdf", func() ([]corpusFile, error) { return img2pdfScans(tmp, photos) }},
		{"ps2pdf", func() ([]corpusFile, error) { return ps2pdfScans(tmp, small) }},
		{"qpdf-encrypted", func() ([]corpusFile, error) { return qpdfEncryptedDocs(tmp, pdfs) }},
	}

	in := testkit.MustStart(t)
	in.AddUser(t, testkit.Partner, testkit.Nit, testkit.Password)
	tok, legacyTok := testkit.V1Token(t, in, testkit.Partner, testkit.Password), in.Token(t, testkit.Partner, testkit.Password)
	today := time.Now()
	counts, n, seen, encrypted := map[string]int{}, 0, map[string]bool{}, 0
	var wrong []string
	for _, src := range sources {
		files, err := src.files()
		if err != nil {
			t.Fatalf("source %s: %v", src.name, err)
		}
		for _, f := range files {
			n++
			counts[src.name]++
			seen[f.name] = true
			body := fixture.Minimal(today, fmt.Sprintf("CR-CORPUS-%04d", n))
			body["Documento Soporte"] = fixture.FileDto(f.data, "")
			r := testkit.Call(t, http.MethodPost, in.URL+"/v1/reports/validate", testkit.V1Header(tok), testkit.MustJSON(body))
			reason, listed := corpusRefused[f.name]
			rule, ruled := corpusRuled[f.name]
			locked, err := qpdfEncrypted(tmp, f)
			if err != nil {
				t.Fatal(err)
			}
			if locked {
				encrypted++
				ruled, rule = true, "file_encrypted: qpdf --is-encrypted says it is encrypted"
			}
			switch {
			case ruled:
				if code, _, _ := strings.Cut(rule, ":"); !strings.Contains(string(r.Raw), `"`+code+`"`) {
					wrong = append(wrong, fmt.Sprintf("%s: %d %s; want %s", f.name, r.Status, fileProblem(string(r.Raw)), rule))
				}
				if locked { // and on the legacy path, as it is the same check
					body["Número de Crédito"] = fmt.Sprintf("CR-CORPUS-L%04d", n)
					if l := in.Report(t, legacyTok, testkit.MustJSON(body)); !strings.Contains(string(l.Raw), `"file_encrypted"`) {
						wrong = append(wrong, fmt.Sprintf("%s on the legacy path: %d %s", f.name, l.Status, fileProblem(string(l.Raw))))
					}
				}
				continue
			case r.Status == 200 && !listed:
			case r.Status == 200:
				wrong = append(wrong, fmt.Sprintf("%s: accepted; listed as refused (%s)", f.name, reason))
			case listed:
				if msg := checkActive(f, reason, string(r.Raw)); msg != "" {
					wrong = append(wrong, msg)
				}
			default:
				wrong = append(wrong, fmt.Sprintf("%s (%d bytes): %d %s", f.name, len(f.data), r.Status, fileProblem(string(r.Raw))))
			}
			// The legacy path runs the same checks; a sample of it stores
			// the file (every tenth, and every listed one).
			if n%10 == 0 || listed {
				body["Número de Crédito"] = fmt.Sprintf("CR-CORPUS-L%04d", n)
				l := in.Report(t, legacyTok, testkit.MustJSON(body))
				if refused := l.Status != 200; refused != listed || listed && !strings.Contains(string(l.Raw), `"file_active_content"`) {
					wrong = append(wrong, fmt.Sprintf("%s on the legacy path: %d %s", f.name, l.Status, fileProblem(string(l.Raw))))
				}
			}
		}
	}
	for name := range corpusRuled {
		if !seen[name] {
			wrong = append(wrong, name+": listed as refused by a rule, not in the corpus")
		}
	}
	for name := range corpusRefused {
		if !seen[name] {
			wrong = append(wrong, name+": listed as refused, not in the corpus")
		}
	}
	var by []string
	for _, src := range sources {
		by = append(by, fmt.Sprintf("%s %d", src.name, counts[src.name]))
	}
	t.Logf("corpus: %d files (%s); %d listed as really active, %d as refused by a rule, %d encrypted (qpdf)", n, strings.Join(by, ", "), len(corpusRefused), len(corpusRuled), encrypted)
	if encrypted < 5 {
		wrong = append(wrong, fmt.Sprintf("qpdf names %d encrypted files, want the 5 of qpdf-encrypted at least", encrypted))
	}
	if len(wrong) > 0 {
		t.Fatalf("%d of %d files not as expected:\n%s", len(wrong), n, strings.Join(wrong, "\n"))
	}
}

var fileProblemCode = regexp.MustCompile(`"code":"(file_[a-z_]+)",[^}]*?"message":"([^"]*)"|"message":"([^"]*)",[^}]*?"code":"(file_[a-z_]+)"`)

// fileProblem is the file problem of a refusal's body, or the body.
func fileProblem(raw string) string {
	if m := fileProblemCode.FindStringSubmatch(raw); m != nil {
		return strings.Join(slices.DeleteFunc(m[1:], func(s string) bool { return s == "" }), ": ")
	}
	return raw[:min(len(raw), 400)]
}

// checkActive says what is wrong with the refusal of a listed file: it
// must be file_active_content, and the oracle must find the name the
// reason starts with ("/EmbeddedFile: …").
func checkActive(f corpusFile, reason, raw string) string {
	if !strings.Contains(raw, `"file_active_content"`) {
		return fmt.Sprintf("%s: %s; listed as active (%s)", f.name, fileProblem(raw), reason)
	}
	names, err := pdforacle.Names(f.data)
	want, _, _ := strings.Cut(strings.TrimPrefix(reason, "/"), ":")
	if err != nil || !slices.Contains(names, want) {
		return fmt.Sprintf("%s: the PDF oracle finds %v (%v), not /%s", f.name, names, err, want)
	}
	return ""
}
