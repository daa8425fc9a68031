// Package filecheck reads an attached file as it is sent, base64 text,
// and says whether its content is what it claims to be: a PDF, PNG, JPEG
// or TIFF by its magic bytes, of an allowed type, within the size and
// pixel bounds, whole, without active content (contract §7). It knows
// bytes only: the limits come from the caller, and a refusal comes back
// as a Finding of a Kind, which package domain maps to its problem codes.
// It imports the standard library only, and not domain: domain imports it.
package filecheck

// Kind is what a Finding says is wrong with a file.
type Kind uint8

// The kinds of Finding. The zero Kind is none: Inspect never returns it.
const (
	// Undecodable: the text is empty or not base64 of the standard
	// alphabet (a data: prefix without ;base64, padding in the middle).
	Undecodable Kind = iota + 1
	// TooLarge: the decoded content is over Limits.MaxBytes.
	TooLarge
	// TypeRefused: the magic bytes name no known type or one not in
	// Limits.Allowed, the file carries script or markup where a reader
	// takes its bytes as text (a polyglot, contract §10), or its structure
	// is not that of its type, or its text cannot be inspected (past a
	// bound of pngtext.go or tifftext.go).
	TypeRefused
	// Truncated: the file stops before its end (a PDF without %%EOF in
	// its last KiB, a PNG without IEND, a JPEG without its end marker or
	// with more than a trailer after it, a TIFF without its directory).
	Truncated
	// ImageTooLarge: an image declares no size, a width or height of 0,
	// or more pixels than Limits.MaxImagePixels.
	ImageTooLarge
	// ActiveContent: a PDF with scripts, launch actions, attachments,
	// rich media or XFA forms, or one that cannot be inspected for them.
	ActiveContent
	// Stopped: the check was ended by its stop channel (InspectUntil)
	// before it could decide; no verdict on the file.
	Stopped
	// Encrypted: a PDF with an /Encrypt entry (in its trailer or an xref
	// stream's dictionary): it opens with a password, or its strings and
	// streams are ciphertext that neither the lender nor the checks read.
	Encrypted
)

// Kinds returns every Kind, so that a caller can show it maps each.
func Kinds() []Kind {
	return []Kind{Undecodable, TooLarge, TypeRefused, Truncated, ImageTooLarge, ActiveContent, Stopped, Encrypted}
}

// String returns the Kind's name, for tests and logs.
func (k Kind) String() string {
	switch k {
	case Undecodable:
		return "undecodable"
	case TooLarge:
		return "too_large"
	case TypeRefused:
		return "type_refused"
	case Truncated:
		return "truncated"
	case ImageTooLarge:
		return "image_too_large"
	case ActiveContent:
		return "active_content"
	case Stopped:
		return "stopped"
	case Encrypted:
		return "encrypted"
	}
	return "none"
}

// Finding is why Inspect refuses a file: its Kind, and a Detail that
// says what was found for the sender to read, in the contract's language
// (Spanish). A Detail never quotes the file's bytes beyond a short
// name (a PDF name of at most 16 bytes, a marker of the fixed list).
type Finding struct {
	Kind   Kind
	Detail string
	// unreadable: the check could not read a structure (fail closed);
	// ciphertext reads so, and a PDF's check holds such a finding until it
	// knows whether the file is encrypted (pdf_encrypt.go).
	unreadable bool
}

func refuse(k Kind, detail string) *Finding { return &Finding{Kind: k, Detail: detail} }
