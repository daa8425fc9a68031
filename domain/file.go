package domain

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"strconv"
	"strings"
	"time"
)

// FileRules are the limits on an attached file.
type FileRules struct {
	Allowed  []string // extensions, e.g. pdf png jpg tif
	MaxBytes int64    // decoded size limit
}

// DefaultFileRules are the contract's defaults.
func DefaultFileRules() FileRules {
	return FileRules{Allowed: []string{"pdf", "png", "jpg", "tif"}, MaxBytes: 20 << 20}
}

// File is an attached file, checked and typed by its content. Its bytes
// are not held decoded: Reader decodes the base64 again as it is written,
// so a 20 MiB file does not sit in memory beside its 27 MiB base64 text.
type File struct {
	source      string // the base64 text, prefix removed, padding trimmed
	Size        int64
	Ext         string // from the magic bytes, never from the client
	ContentType string
	SHA256      [32]byte
}

// Reader returns the decoded content, from the start.
func (f *File) Reader() io.Reader {
	return base64.NewDecoder(base64.RawStdEncoding, &spaceless{s: f.source})
}

// spaceless reads a string without its spaces, tabs, CRs and LFs.
type spaceless struct {
	s   string
	pos int
}

func (r *spaceless) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) && r.pos < len(r.s) {
		c := r.s[r.pos]
		r.pos++
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' {
			continue
		}
		p[n] = c
		n++
	}
	if n == 0 && r.pos >= len(r.s) {
		return 0, io.EOF
	}
	return n, nil
}

// fileType is a type the service can recognise by content.
type fileType struct {
	ext, contentType string
	aliases          []string
	magic            [][]byte
}

var fileTypes = []fileType{
	{"pdf", "application/pdf", nil, [][]byte{[]byte("%PDF-")}},
	{"png", "image/png", nil, [][]byte{[]byte("\x89PNG\r\n\x1a\n")}},
	{"jpg", "image/jpeg", []string{"jpeg", "jpe"}, [][]byte{{0xFF, 0xD8, 0xFF}}},
	{"tif", "image/tiff", []string{"tiff"}, [][]byte{[]byte("II*\x00"), []byte("MM\x00*")}},
}

func sniff(data []byte) (fileType, bool) {
	for _, t := range fileTypes {
		for _, m := range t.magic {
			if bytes.HasPrefix(data, m) {
				return t, true
			}
		}
	}
	return fileType{}, false
}

func canonicalExt(ext string) string {
	ext = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(ext), "."))
	for _, t := range fileTypes {
		if ext == t.ext || contains(t.aliases, ext) {
			return t.ext
		}
	}
	return ext
}

// parseFile reads a FileDto object: Base64String (required), and the
// optional FileName, ContentType and Extension, which must agree with the
// content. Member names are case-insensitive; other members are ignored.
func parseFile(raw RawValue, rules FileRules) (*File, *fieldErr) {
	if raw.Kind != RawObject {
		return nil, bad(CodeInvalidType, "se esperaba un objeto FileDto con Base64String, llegó "+raw.Kind.String())
	}
	var b64, name, ctype, ext string
	seen := map[string]bool{}
	for _, m := range raw.Members {
		k := strings.ToLower(m.Key)
		var dst *string
		switch k {
		case "base64string":
			dst = &b64
		case "filename":
			dst = &name
		case "contenttype":
			dst = &ctype
		case "extension":
			dst = &ext
		default:
			continue
		}
		if seen[k] {
			return nil, bad(CodeDuplicateField, "el miembro "+m.Key+" está repetido")
		}
		seen[k] = true
		switch m.Value.Kind {
		case RawNull:
		case RawString:
			*dst = m.Value.Text
		default:
			return nil, bad(CodeInvalidType, "el miembro "+m.Key+" debe ser texto")
		}
	}
	if strings.TrimSpace(b64) == "" {
		return nil, bad(CodeInvalidFile, "falta Base64String o está vacío")
	}
	file, fe := inspect(b64, rules)
	if fe != nil {
		return nil, fe
	}
	t, _ := sniffExt(file.Ext)
	if ext != "" && canonicalExt(ext) != t.ext {
		return nil, bad(CodeFileMismatch, "Extension declarada ("+ext+") no corresponde al contenido ("+t.ext+")")
	}
	if name != "" {
		if i := strings.LastIndexByte(name, '.'); i < 0 || canonicalExt(name[i+1:]) != t.ext {
			return nil, bad(CodeFileMismatch, "FileName declarado no corresponde al contenido ("+t.ext+")")
		}
	}
	if ctype != "" {
		mt, _, _ := strings.Cut(ctype, ";")
		if !strings.EqualFold(strings.TrimSpace(mt), t.contentType) {
			return nil, bad(CodeFileMismatch, "ContentType declarado no corresponde al contenido ("+t.contentType+")")
		}
	}
	return file, nil
}

func sniffExt(ext string) (fileType, bool) {
	for _, t := range fileTypes {
		if t.ext == ext {
			return t, true
		}
	}
	return fileType{}, false
}

// inspect checks a Base64String without keeping its decoded bytes: the
// standard alphabet with optional padding, CR/LF/tab/space ignored, a
// data: URL prefix removed. The size limit is checked before decoding;
// then one streaming pass types the content by its magic bytes, looks for
// active content across the whole file and computes its SHA-256.
func inspect(s string, rules FileRules) (*File, *fieldErr) {
	if strings.HasPrefix(s, "data:") {
		i := strings.Index(s, ";base64,")
		if i < 0 || i > 200 {
			return nil, bad(CodeInvalidFile, "prefijo data: sin ;base64,")
		}
		s = s[i+len(";base64,"):]
	}
	s = strings.TrimRight(s, "= \t\r\n")
	chars := int64(0)
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			chars++
		}
	}
	if chars == 0 {
		return nil, bad(CodeInvalidFile, "Base64String está vacío")
	}
	if size := chars * 3 / 4; rules.MaxBytes > 0 && size > rules.MaxBytes {
		return nil, bad(CodeFileTooLarge, "el archivo supera el máximo de "+strconv.FormatInt(rules.MaxBytes, 10)+" bytes")
	}
	f := &File{source: s}
	h := sha256.New()
	r := f.Reader()
	buf := make([]byte, 64<<10)
	var head, edge []byte // the first bytes (type), the last of the previous chunk (markers across chunks)
	for {
		n, err := r.Read(buf)
		chunk := buf[:n]
		if len(head) < 16 {
			head = append(head, chunk[:min(len(chunk), 16-len(head))]...)
		}
		if n > 0 {
			h.Write(chunk)
			f.Size += int64(n)
			seam := append(edge, chunk[:min(len(chunk), len(longestMarker)-1)]...)
			if m := activeContent(seam); m != "" {
				return nil, bad(CodeFileType, "el archivo contiene contenido activo ("+m+"); no se aceptan archivos políglotas")
			}
			if m := activeContent(chunk); m != "" {
				return nil, bad(CodeFileType, "el archivo contiene contenido activo ("+m+"); no se aceptan archivos políglotas")
			}
			edge = append(edge[:0], chunk[max(0, len(chunk)-(len(longestMarker)-1)):]...)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, bad(CodeInvalidFile, "Base64String no es base64 válido")
		}
	}
	t, ok := sniff(head)
	if !ok || !contains(rules.Allowed, t.ext) {
		return nil, bad(CodeFileType, "tipo de archivo no permitido; se aceptan "+strings.Join(rules.Allowed, ", "))
	}
	f.Ext, f.ContentType = t.ext, t.contentType
	copy(f.SHA256[:], h.Sum(nil))
	return f, nil
}

// FileName builds partner_{numero_credito}_{timestamp}.{ext} with a
// file-safe UTC timestamp such as 20261126T102030123Z.
func FileName(creditNumber string, at time.Time, ext string) string {
	ts := at.UTC().Format("20060102T150405.000Z")
	ts = strings.Replace(ts, ".", "", 1)
	return "partner_" + creditNumber + "_" + ts + "." + ext
}

// activeMarkers are the openings of script or markup that a document or
// image has no reason to carry in the clear: a file that holds one is a
// polyglot (a PDF or JPEG that is also PHP or HTML) and is refused.
var activeMarkers = []string{"<?php", "<?=", "<script", "<html", "<svg", longestMarker, "<iframe", "<body", "<object", "<embed"}

const longestMarker = "<!doctype html"

// activeContent returns the first active marker found in data, matching
// case-insensitively without copying the content.
func activeContent(data []byte) string {
	for i := bytes.IndexByte(data, '<'); i >= 0; {
		rest := data[i:]
		for _, m := range activeMarkers {
			if len(rest) >= len(m) && bytes.EqualFold(rest[:len(m)], []byte(m)) {
				return m
			}
		}
		j := bytes.IndexByte(data[i+1:], '<')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return ""
}
