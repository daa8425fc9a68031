package domain

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/lender/disbursementd/domain/filecheck"
)

// FileTypes returns the file types the service knows by content, by
// name (pdf, png, jpg, tif): what uploads.allowed_types may list. The
// list itself, with aliases and magic bytes, is filecheck's.
func FileTypes() []string { return filecheck.Names() }

// FileRules are the limits on an attached file (contract §7). Only
// NewFileRules makes them; the zero FileRules admits no file.
type FileRules struct{ limits filecheck.Limits }

// NewFileRules returns the rules that allow the types named in allowed
// (some of FileTypes), files of at most maxBytes decoded bytes and
// images of at most maxImagePixels declared pixels, and PDFs with active
// content only when allowPDFScripts is set. It refuses what
// CheckFileTypes, CheckMaxFileBytes and CheckMaxImagePixels refuse: none
// has a default here (the defaults are config's).
func NewFileRules(allowed []string, maxBytes, maxImagePixels int64, allowPDFScripts bool) (FileRules, error) {
	for _, err := range []error{CheckFileTypes(allowed), CheckMaxFileBytes(maxBytes), CheckMaxImagePixels(maxImagePixels)} {
		if err != nil {
			return FileRules{}, fmt.Errorf("file rules: %w", err)
		}
	}
	return FileRules{filecheck.Limits{Allowed: slices.Clone(allowed), MaxBytes: maxBytes,
		MaxImagePixels: maxImagePixels, AllowPDFScripts: allowPDFScripts}}, nil
}

// WithDecoder returns r with decode in place of the standard library's
// base64 decoder (the same bytes, count and refusals as
// base64.RawStdEncoding.Decode: filecheck.Decoder says what it must do).
// nil restores the standard library's.
func (r FileRules) WithDecoder(decode filecheck.Decoder) FileRules {
	r.limits.Allowed = slices.Clone(r.limits.Allowed)
	r.limits.Decode = decode
	return r
}

// Allowed returns the allowed types, by name.
func (r FileRules) Allowed() []string { return slices.Clone(r.limits.Allowed) }

// MaxBytes returns the largest decoded size allowed.
func (r FileRules) MaxBytes() int64 { return r.limits.MaxBytes }

// MaxImagePixels returns the most pixels an image may declare.
func (r FileRules) MaxImagePixels() int64 { return r.limits.MaxImagePixels }

// AllowPDFScripts reports whether PDFs with active content are let through.
func (r FileRules) AllowPDFScripts() bool { return r.limits.AllowPDFScripts }

// File is an attached file, checked and typed by its content: what
// filecheck.Inspect accepted (its Size, Ext and ContentType by magic
// bytes, never from the client, SHA256), read back through Reader or
// WriteTo. It is filecheck's type under domain's name, so that a report
// holds the checked content itself, with nothing copied or allocated
// beside it.
type File = filecheck.Content

// inspectFile checks a Base64String against rules, until stop is closed
// (nil: never); a refusal comes back as the problem of its code.
func inspectFile(b64 string, rules FileRules, stop <-chan struct{}) (*File, *fieldErr) {
	f, found := filecheck.InspectUntil(b64, rules.limits, stop)
	if found != nil {
		return nil, bad(fileCodes[found.Kind], found.Detail)
	}
	return f, nil
}

// problem codes of the file rules of contract §7, beside the file codes of
// parse.go.
const (
	// CodeFileActiveContent: a PDF that carries scripts, launch actions,
	// attachments, rich media or XFA forms.
	CodeFileActiveContent = "file_active_content"
	// CodeFileImageTooLarge: an image whose header declares no size, a
	// width or height of 0, or more pixels than FileRules.MaxImagePixels.
	CodeFileImageTooLarge = "file_image_too_large"
	// CodeFileTruncated: a file that stops before its end: a PDF without
	// %%EOF in its last KiB, a PNG without IEND, a JPEG without its end
	// marker.
	CodeFileTruncated = "file_truncated"
	// CodeFileCheckStopped: the file's check was stopped (MapOptions.Stop:
	// the request ran out of time or its client left) before it decided.
	// It is no problem of the file: MapReportWith answers it as
	// ErrUnavailable, and the partner may send the report again.
	CodeFileCheckStopped = "file_check_stopped"
	// CodeFileEncrypted: a PDF that is encrypted (an /Encrypt entry): it
	// needs a password to open, or holds what no check can read.
	CodeFileEncrypted = "file_encrypted"
)

// fileCodes are the problem codes of filecheck's findings; a test keeps
// every filecheck.Kind in it.
var fileCodes = map[filecheck.Kind]string{
	filecheck.Undecodable:   CodeInvalidFile,
	filecheck.TooLarge:      CodeFileTooLarge,
	filecheck.TypeRefused:   CodeFileType,
	filecheck.Truncated:     CodeFileTruncated,
	filecheck.ImageTooLarge: CodeFileImageTooLarge,
	filecheck.ActiveContent: CodeFileActiveContent,
	filecheck.Stopped:       CodeFileCheckStopped,
	filecheck.Encrypted:     CodeFileEncrypted,
}

// NewFileFromBytes checks data exactly as the Base64String of a report's
// FileDto is checked (it goes through the same base64 path), for tests
// of other packages that need a File. The error is an *Error whose Code
// is the file problem's code (CodeInvalidFile, CodeFileType, ...);
// its kind is ErrTooLarge for CodeFileTooLarge and ErrInvalidInput else.
func NewFileFromBytes(data []byte, rules FileRules) (*File, error) {
	if len(data) == 0 {
		return nil, NewError(ErrInvalidInput, CodeInvalidFile, "el archivo está vacío")
	}
	f, fe := inspectFile(base64.StdEncoding.EncodeToString(data), rules, nil)
	if fe != nil {
		kind := ErrInvalidInput
		if fe.code == CodeFileTooLarge {
			kind = ErrTooLarge
		}
		return nil, NewError(kind, fe.code, fe.msg)
	}
	return f, nil
}

// UploadPrefix starts the name of every file the service stores
// (FileName): the upload stores list their own files by it.
const UploadPrefix = "partner_"

// IsUploadName reports whether name is one FileName could have made, by
// its prefix: a file of the service's, not one an operator put there.
func IsUploadName(name string) bool { return strings.HasPrefix(name, UploadPrefix) }

// CheckUploadName is ValidUploadName's answer as an error: nil, or
// ErrInvalidInput (invalid_file_name) naming what such a name looks like.
// The sweep and the upload stores refuse a name an operator typed with it.
func CheckUploadName(name string) error {
	if ValidUploadName(name) {
		return nil
	}
	return NewError(ErrInvalidInput, "invalid_file_name", fmt.Sprintf("%q is not the name of an uploaded file (partner_CREDIT_TIMESTAMP.EXT)", name))
}

// ValidUploadName reports whether name is exactly one FileName makes:
// partner_, a valid credit number, _, an 18-character timestamp such as
// 20261126T102030123Z, a dot and a lower-case extension. Names an
// operator types (reconcile --restore-quarantined) pass here before they
// reach a store, so no path, link or other file can be named.
func ValidUploadName(name string) bool {
	rest, ok := strings.CutPrefix(name, UploadPrefix)
	if !ok {
		return false
	}
	dot := strings.LastIndexByte(rest, '.')
	under := strings.LastIndexByte(rest, '_')
	if dot < 0 || under < 0 || under > dot || !ValidCreditNumber(rest[:under]) {
		return false
	}
	ts, ext := rest[under+1:dot], rest[dot+1:]
	if _, err := time.Parse("20060102T150405", ts[:min(len(ts), 15)]); err != nil || len(ts) != 19 || ts[18] != 'Z' {
		return false
	}
	for i := 15; i < 18; i++ {
		if ts[i] < '0' || ts[i] > '9' {
			return false
		}
	}
	if len(ext) < 1 || len(ext) > 5 {
		return false
	}
	for i := 0; i < len(ext); i++ {
		if ext[i] < 'a' || ext[i] > 'z' {
			return false
		}
	}
	return true
}

// FileName builds partner_{numero_credito}_{timestamp}.{ext} with a
// file-safe UTC timestamp such as 20261126T102030123Z.
func FileName(creditNumber string, at time.Time, ext string) string {
	ts := at.UTC().Format("20060102T150405.000Z")
	ts = strings.Replace(ts, ".", "", 1)
	return UploadPrefix + creditNumber + "_" + ts + "." + ext
}
