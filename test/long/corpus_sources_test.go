package long

import (
	"bytes"
	"compress/gzip"
	"encoding/ascii85"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	_ "image/jpeg" // DecodeConfig of the photos put in PostScript
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// The real-document corpus: files that no one here made, from what the
// registries ship (Debian's packages, the Go module proxy, Go itself),
// and scans made from them by real producers. Each source returns its
// files, or an error when it is not there (.ci/run installs them all).

// corpusFile is one document of the corpus. name is its source and its
// path within the source, as the expected refusals name it.
type corpusFile struct {
	source, name string
	data         []byte
}

// corpusExts are the types the service accepts, as the corpus finds
// them by name (the service itself types them by content).
var corpusExts = []string{".pdf", ".png", ".jpg", ".jpeg", ".tif", ".tiff"}

// readTree reads the files of dir (and below) whose name ends in one of
// corpusExts, in name order, leaving out those skip says are not
// documents.
func readTree(source, dir string, skip func(rel string) bool) ([]corpusFile, error) {
	var files []corpusFile
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if d.IsDir() || !slices.Contains(corpusExts, strings.ToLower(filepath.Ext(path))) || skip != nil && skip(rel) {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files = append(files, corpusFile{source, source + "/" + filepath.ToSlash(rel), data})
		return nil
	})
	if err == nil && len(files) == 0 {
		err = fmt.Errorf("no documents in %s", dir)
	}
	return files, err
}

// moduleDir is where the Go module cache holds module (the version the
// module graph selects, or the one written after @), downloading it
// first if needed.
func moduleDir(module string) (string, error) {
	out, err := exec.Command("go", "mod", "download", "-json", module).Output()
	if err != nil {
		return "", fmt.Errorf("go mod download %s: %w", module, err)
	}
	var m struct{ Dir, Error string }
	if err := json.Unmarshal(out, &m); err != nil || m.Dir == "" {
		return "", fmt.Errorf("go mod download %s: no directory (%s)", module, m.Error)
	}
	return m.Dir, nil
}

// pdfcpuTestdata: pdfcpu's PDF test corpus (real PDFs of many producers)
// and its images.
func pdfcpuTestdata() ([]corpusFile, error) {
	dir, err := moduleDir("github.com/pdfcpu/pdfcpu@v0.15.0")
	if err != nil {
		return nil, err
	}
	return readTree("pdfcpu", filepath.Join(dir, "pkg", "testdata"), nil)
}

// xImageTestdata: golang.org/x/image's test images (TIFF of every
// compression, PNG, JPEG). Its decoder tests' deliberately broken inputs
// (invalid-*, as the Go distribution's below) are not documents: left
// out (invalid-palette-ref.tiff names a value past its end).
func xImageTestdata() ([]corpusFile, error) {
	dir, err := moduleDir("golang.org/x/image")
	if err != nil {
		return nil, err
	}
	return readTree("x-image", filepath.Join(dir, "testdata"), func(rel string) bool {
		return strings.HasPrefix(filepath.Base(rel), "invalid-")
	})
}

// goImageTestdata: the Go distribution's image test files (the PNG
// suite, JPEGs of every subsampling). The decoder tests' deliberately
// broken inputs (invalid-*, *truncated*) are not documents: left out.
func goImageTestdata() ([]corpusFile, error) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return nil, err
	}
	root := filepath.Join(strings.TrimSpace(string(out)), "src", "image")
	return readTree("go-image", root, func(rel string) bool {
		base := filepath.Base(rel)
		return strings.HasPrefix(base, "invalid-") || strings.Contains(base, "truncated")
	})
}

// mateBackgrounds: Debian's mate-backgrounds, photos and artwork as JPEG
// and PNG.
func mateBackgrounds() ([]corpusFile, error) {
	return readTree("mate-backgrounds", "/usr/share/backgrounds/mate", nil)
}

// gnomeBackgrounds: Debian's gnome-backgrounds ships WebP, which the
// service does not take; libwebp's dwebp (Debian's webp) writes each as
// a PNG 1280 pixels wide, and the dark ones (*-d) also as a TIFF 960
// wide, as an image tool would export them (sizes kept down so that the
// corpus runs under the race detector in CI within a few minutes).
func gnomeBackgrounds(tmp string) ([]corpusFile, error) {
	webps, _ := filepath.Glob("/usr/share/backgrounds/gnome/*.webp")
	if len(webps) == 0 {
		return nil, fmt.Errorf("no WebP in /usr/share/backgrounds/gnome")
	}
	var files []corpusFile
	for _, w := range webps {
		base := strings.TrimSuffix(filepath.Base(w), ".webp")
		for _, out := range []struct{ width, ext string }{{"1280", ".png"}, {"960", ".tif"}} {
			if out.ext == ".tif" && !strings.HasSuffix(base, "-d") {
				continue
			}
			path := filepath.Join(tmp, base+out.ext)
			args := []string{w, "-quiet", "-resize", out.width, "0", "-o", path}
			if out.ext == ".tif" {
				args = append(args, "-tiff")
			}
			if msg, err := exec.Command("dwebp", args...).CombinedOutput(); err != nil {
				return nil, fmt.Errorf("dwebp %s: %v: %s", w, err, msg)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return nil, err
			}
			files = append(files, corpusFile{"gnome-backgrounds", "gnome-backgrounds/" + base + out.ext, data})
		}
	}
	return files, nil
}

// texManuals: PDFs made by TeX, as Debian ships them (gnuplot-doc's
// manual; dblatex-doc's, gzipped by Debian and read through gzip here).
func texManuals() ([]corpusFile, error) {
	var files []corpusFile
	for _, path := range []string{"/usr/share/doc/gnuplot/gnuplot.pdf", "/usr/share/doc/dblatex/manual.pdf.gz", "/usr/share/doc/dblatex/release-notes.pdf.gz"} {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		if strings.HasSuffix(path, ".gz") {
			zr, err := gzip.NewReader(bytes.NewReader(data))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			if data, err = io.ReadAll(zr); err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
		}
		files = append(files, corpusFile{"tex-manuals", "tex-manuals/" + strings.TrimSuffix(filepath.Base(path), ".gz"), data})
	}
	return files, nil
}

// img2pdfScans: what a scan looks like. img2pdf puts each photo in a
// PDF as it is (a JPEG as DCT data, a PNG's image data as Flate).
func img2pdfScans(tmp string, photos []corpusFile) ([]corpusFile, error) {
	var files []corpusFile
	for _, p := range photos {
		in := filepath.Join(tmp, "scan-in-"+filepath.Base(p.name))
		out := strings.TrimSuffix(in, filepath.Ext(in)) + ".pdf"
		if err := os.WriteFile(in, p.data, 0o600); err != nil {
			return nil, err
		}
		if msg, err := exec.Command("img2pdf", in, "-o", out).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("img2pdf %s: %v: %s", p.name, err, msg)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			return nil, err
		}
		files = append(files, corpusFile{"img2pdf", "img2pdf/" + filepath.Base(p.name) + ".pdf", data})
	}
	return files, nil
}

// ps2pdfScans: Ghostscript's ps2pdf, from PostScript written here: a page
// of text, pages that draw a photo (DCT data, which Ghostscript decodes
// and encodes again) under a line of text, as a scanning application
// that prints to PDF writes them, and a page with an attached file
// (contract §7 refuses it: corpusRefused lists it).
func ps2pdfScans(tmp string, photos []corpusFile) ([]corpusFile, error) {
	docs := map[string]string{"text.ps": psPage("", 0, 0, false), "attachment.ps": psAttachment + psPage("", 0, 0, false)}
	for _, p := range photos {
		cfg, _, err := image.DecodeConfig(bytes.NewReader(p.data))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.name, err)
		}
		docs[strings.TrimSuffix(filepath.Base(p.name), filepath.Ext(p.name))+".ps"] = psPage(psImage(p.data), cfg.Width, cfg.Height, cfg.ColorModel == color.GrayModel)
	}
	names := make([]string, 0, len(docs))
	for n := range docs {
		names = append(names, n)
	}
	slices.Sort(names)
	var files []corpusFile
	for _, n := range names {
		in := filepath.Join(tmp, n)
		out := strings.TrimSuffix(in, ".ps") + ".pdf"
		if err := os.WriteFile(in, []byte(docs[n]), 0o600); err != nil {
			return nil, err
		}
		if msg, err := exec.Command("ps2pdf", in, out).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("ps2pdf %s: %v: %s", n, err, msg)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			return nil, err
		}
		files = append(files, corpusFile{"ps2pdf", "ps2pdf/" + strings.TrimSuffix(n, ".ps") + ".pdf", data})
	}
	return files, nil
}

// psAttachment attaches a text file with Ghostscript's EMBED pdfmark.
const psAttachment = `%!PS-Adobe-3.0
[ /_objdef {anexo} /type /stream /OBJ pdfmark
[ {anexo} << /Type /EmbeddedFile /Subtype (text/plain) >> /PUT pdfmark
[ {anexo} (Tabla de amortizacion del credito CR-2026-0001) /PUT pdfmark
[ {anexo} /CLOSE pdfmark
[ /Name (anexo.txt) /FS << /Type /Filespec /F (anexo.txt) /EF << /F {anexo} >> >> /EMBED pdfmark
`

// psImage is a JPEG as ASCII85 lines for PostScript's currentfile.
func psImage(jpeg []byte) string {
	enc := make([]byte, ascii85.MaxEncodedLen(len(jpeg)))
	enc = enc[:ascii85.Encode(enc, jpeg)]
	var b strings.Builder
	for i := 0; i < len(enc); i += 76 {
		b.Write(enc[i:min(i+76, len(enc))])
		b.WriteByte('\n')
	}
	b.WriteString("~>\n")
	return b.String()
}

// psPage is an A4 page of text and, when data is not empty, a photo of
// width×height pixels fitted below it.
func psPage(data string, width, height int, gray bool) string {
	var b strings.Builder
	b.WriteString("%!PS-Adobe-3.0\n%%BoundingBox: 0 0 595 842\n%%Pages: 1\n%%EndComments\n%%Page: 1 1\n")
	b.WriteString("/Helvetica findfont 12 scalefont setfont\n")
	for i, line := range []string{"PAGARE No. CR-2026-0001", "Ana Perez, C.C. 1020304050", "Monto aprobado: 14.334.900,55", "Firma del deudor y huella"} {
		fmt.Fprintf(&b, "72 %d moveto (%s) show\n", 770-18*i, line)
	}
	if data != "" {
		w, h := 451.0, 451.0*float64(height)/float64(width)
		space, decode := "/DeviceRGB", "[0 1 0 1 0 1]"
		if gray {
			space, decode = "/DeviceGray", "[0 1]"
		}
		fmt.Fprintf(&b, "gsave 72 %.1f translate %.1f %.1f scale %s setcolorspace\n", 680-h, w, h, space)
		fmt.Fprintf(&b, "<< /ImageType 1 /Width %d /Height %d /BitsPerComponent 8 /Decode %s /ImageMatrix [%d 0 0 %d 0 %d]\n", width, height, decode, width, -height, height)
		b.WriteString("   /DataSource currentfile /ASCII85Decode filter /DCTDecode filter >> image\n")
		b.WriteString(data)
		b.WriteString("grestore\n")
	}
	b.WriteString("showpage\n%%EOF\n")
	return b.String()
}
