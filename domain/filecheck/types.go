package filecheck

import (
	"bytes"
	"slices"
	"strings"
)

// fileType is a type the checks know by its content.
type fileType struct {
	ext, contentType string
	aliases          []string
	magic            [][]byte
	// checks returns the checks of this type's structure (contract §7),
	// or nil for a type without any.
	checks func(Limits) contentCheck
}

// fileTypes is the one list of the file types the service knows: the
// name of each (as uploads.allowed_types, Limits.Allowed and the stored
// file's extension spell it), the aliases a sender may declare for it,
// its content type, its magic bytes and its checks. Config validates
// uploads.allowed_types against Names (through domain.FileTypes), and a
// test of config keeps that setting's default equal to Names.
var fileTypes = []fileType{
	{"pdf", "application/pdf", nil, [][]byte{[]byte("%PDF-")}, newPDFCheck},
	{"png", "image/png", nil, [][]byte{[]byte("\x89PNG\r\n\x1a\n")}, newPNGCheck},
	{"jpg", "image/jpeg", []string{"jpeg", "jpe"}, [][]byte{{0xFF, 0xD8, 0xFF}}, newJPEGCheck},
	{"tif", "image/tiff", []string{"tiff"}, [][]byte{[]byte("II*\x00"), []byte("MM\x00*")}, newTIFFCheck},
}

// Names returns the name of every type the checks know, in a fixed order.
func Names() []string {
	names := make([]string, len(fileTypes))
	for i, t := range fileTypes {
		names[i] = t.ext
	}
	return names
}

// Canonical returns the name of the known type that ext names, as a
// name or an alias, in any case, with a leading dot and surrounding
// space ignored ("JPEG", ".tiff"); ok is false when no type has it.
func Canonical(ext string) (name string, ok bool) {
	ext = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(ext), "."))
	for _, t := range fileTypes {
		if ext == t.ext || slices.Contains(t.aliases, ext) {
			return t.ext, true
		}
	}
	return "", false
}

// pdfHeaderWithin is how far into a file a PDF's header may start, as
// viewers look for it (a print workflow may put lines before it). What
// may come before it is pdfPrefix's rule (pdf_header.go): white space,
// comment lines and PJL, nothing else. An image starts with its
// signature.
const pdfHeaderWithin = 1024

// sniff returns the type whose magic bytes data starts with or, for a
// PDF, holds in its first pdfHeaderWithin bytes. more says that data,
// not the whole file (final is false), is too short to tell yet.
func sniff(data []byte, final bool) (t fileType, ok, more bool) {
	for _, t := range fileTypes {
		for _, m := range t.magic {
			if bytes.HasPrefix(data, m) {
				return t, true, false
			}
		}
	}
	pdf := fileTypes[slices.IndexFunc(fileTypes, func(t fileType) bool { return t.ext == "pdf" })]
	within := pdfHeaderWithin + len(pdf.magic[0])
	if bytes.Contains(data[:min(len(data), within)], pdf.magic[0]) {
		return pdf, true, false
	}
	return fileType{}, false, !final && len(data) < within
}
