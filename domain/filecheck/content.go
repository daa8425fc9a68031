package filecheck

import (
	"bytes"
	"io"
)

// Limits are what Inspect holds a file to. Each is a bound that admits
// nothing at zero: no type when Allowed is empty, no byte when MaxBytes
// is 0, no image when MaxImagePixels is 0. Choosing them (and refusing
// a zero) is the caller's rule: domain.NewFileRules.
type Limits struct {
	Allowed         []string // type names, as Names spells them
	MaxBytes        int64    // the decoded size
	MaxImagePixels  int64    // width×height as an image's header declares it
	AllowPDFScripts bool     // let PDFs with active content through (contract §7: false)
}

// Content is a file that Inspect accepted: its type by its magic bytes,
// its decoded size and SHA-256, and its base64 text. A large file's bytes
// are not held decoded: Reader and WriteTo decode the text again as it is
// written, so a 20 MiB file does not sit in memory beside its 27 MiB of
// base64 (the memory bound is 1.5× the body). A file of at most
// keepDecoded bytes keeps what Inspect decoded, and is written without a
// second decode, for at most keepDecoded bytes held while it is handled.
type Content struct {
	source      string // the base64 text, prefix removed, padding trimmed
	decoded     []byte // the content, for files of at most keepDecoded bytes
	Size        int64
	Ext         string // the type's name, from the magic bytes
	ContentType string
	SHA256      [32]byte
}

// keepDecoded is the largest file whose decoded bytes are kept.
const keepDecoded = 1 << 20

// Reader returns the decoded content, from the start. It is also an
// io.WriterTo, so io.Copy and io.CopyBuffer decode straight into the
// destination in large blocks.
func (c *Content) Reader() io.Reader {
	if c.decoded != nil {
		return bytes.NewReader(c.decoded)
	}
	return &fileReader{d: b64Decoder{src: c.source}}
}

// WriteTo writes the decoded content to w.
func (c *Content) WriteTo(w io.Writer) (int64, error) {
	if c.decoded != nil {
		n, err := w.Write(c.decoded)
		return int64(n), err
	}
	r := fileReader{d: b64Decoder{src: c.source}}
	return r.WriteTo(w)
}
