// Package domain holds the rules of the partner disbursement service: the
// field catalogue and its mapping, the validation of a report, the file
// rules (allowed types, bounds, names, problem codes; the byte-level checks
// they apply are in domain/filecheck), the token claim rules, the error
// kinds, Unicode NFC of report text (nfc.go), and every bound a partner or
// an operator meets with the words that state it (bounds.go). It imports
// the standard library, its own subpackages and golang.org/x/text's
// normaliser only, and knows nothing of HTTP, SQL or JSON encodings.
package domain
