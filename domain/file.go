package domain

import (
	"bytes"
	"encoding/base64"
	"io"
	"strings"
	"time"
)

// FileRules are the limits on an attached file.
type FileRules struct {
	Allowed  []string // extensions, e.g. pdf png jpg tif
	MaxBytes int64    // decoded size limit; 0 means no limit
	// AllowPDFScripts lets PDFs with scripts, launch actions, attachments,
	// rich media or XFA forms through (contract §7: false by default).
	AllowPDFScripts bool
	// MaxImagePixels bounds width×height as an image's header declares
	// it; 0 means the contract's default, so that rules built without
	// this field still refuse decompression bombs.
	MaxImagePixels int64
}

// DefaultMaxImagePixels is the contract's default for MaxImagePixels.
const DefaultMaxImagePixels = 100_000_000

// DefaultFileRules are the contract's defaults.
func DefaultFileRules() FileRules {
	return FileRules{
		Allowed:        []string{"pdf", "png", "jpg", "tif"},
		MaxBytes:       20 << 20,
		MaxImagePixels: DefaultMaxImagePixels,
	}
}

func (r FileRules) maxImagePixels() int64 {
	if r.MaxImagePixels <= 0 {
		return DefaultMaxImagePixels
	}
	return r.MaxImagePixels
}

// File is an attached file, checked and typed by its content. A large
// file's bytes are not held decoded: Reader and WriteTo decode the base64
// again as it is written, so a 20 MiB file does not sit in memory beside
// its 27 MiB base64 text (the memory bound is 1.5× the body). A file of at
// most keepDecoded bytes keeps what the check decoded, so it is written
// without a second decode: at 200 KB that saves about a quarter of a
// millisecond of CPU a report, for 200 KB held while the report is
// processed.
type File struct {
	source      string // the base64 text, prefix removed, padding trimmed
	decoded     []byte // the content, for files of at most keepDecoded bytes
	Size        int64
	Ext         string // from the magic bytes, never from the client
	ContentType string
	SHA256      [32]byte
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
	f, fe := inspect(base64.StdEncoding.EncodeToString(data), rules)
	if fe != nil {
		kind := ErrInvalidInput
		if fe.code == CodeFileTooLarge {
			kind = ErrTooLarge
		}
		return nil, NewError(kind, fe.code, fe.msg)
	}
	return f, nil
}

// Reader returns the decoded content, from the start. It is also an
// io.WriterTo, so io.Copy and io.CopyBuffer decode straight into the
// destination in large blocks.
func (f *File) Reader() io.Reader {
	if f.decoded != nil {
		return bytes.NewReader(f.decoded)
	}
	return &fileReader{d: b64Decoder{src: f.source}}
}

// keepDecoded is the largest file whose decoded bytes are kept.
const keepDecoded = 1 << 20

// WriteTo writes the decoded content to w.
func (f *File) WriteTo(w io.Writer) (int64, error) {
	if f.decoded != nil {
		n, err := w.Write(f.decoded)
		return int64(n), err
	}
	r := fileReader{d: b64Decoder{src: f.source}}
	return r.WriteTo(w)
}

// FileName builds partner_{numero_credito}_{timestamp}.{ext} with a
// file-safe UTC timestamp such as 20261126T102030123Z.
func FileName(creditNumber string, at time.Time, ext string) string {
	ts := at.UTC().Format("20060102T150405.000Z")
	ts = strings.Replace(ts, ".", "", 1)
	return "partner_" + creditNumber + "_" + ts + "." + ext
}
