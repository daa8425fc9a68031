package domain

// The one masking rule of credentials written into text (contract §7, "No
// credentials in logs or errors"): the password of every user:password@ in
// a URL (https://u:p@host/) or a go-sql-driver DSN (u:p@tcp(host:3306)/db).
// The configuration's start-up line and every adapter whose errors may
// quote such a setting use it.

import "strings"

// CredentialMask is what a password is replaced with.
const CredentialMask = "***"

// MaskCredentials returns s with the password of every user:password@ in it
// replaced by ***; the user name stays. The user information before an
// '@' starts after the last space, quote or "//" before it, and its
// password after its first ':'. A password that contains '@' is masked
// whole (each '@' in turn extends the masked part), and so is one that
// contains ':' or '/'. Text with no ':' before an '@' (an e-mail address)
// is left as it is; text that only looks like credentials (host:port/
// path@x) is masked too, which hides nothing secret.
func MaskCredentials(s string) string {
	if !strings.Contains(s, "@") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	start := 0 // where the current token began in s
	done := 0  // s[:done] is in b
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '"' || c == '\'' || c == '`' || c == '<' || c == '>':
			start = i + 1
		case c == '/' && i+1 < len(s) && s[i+1] == '/':
			start = i + 2
		case c == '@':
			colon := strings.IndexByte(s[start:i], ':')
			if colon < 0 {
				continue
			}
			from := start + colon + 1
			if from < done { // a password with '@': its start is masked already
				from = done
			}
			b.WriteString(s[done:from])
			if done <= start+colon { // not yet masked
				b.WriteString(CredentialMask)
			}
			done = i
		}
	}
	b.WriteString(s[done:])
	return b.String()
}

// MaskError returns err with its text masked by MaskCredentials; errors.Is and
// errors.As still see err. A nil err stays nil.
func MaskError(err error) error {
	if err == nil {
		return nil
	}
	return maskedError{err}
}

type maskedError struct{ err error }

func (m maskedError) Error() string { return MaskCredentials(m.err.Error()) }
func (m maskedError) Unwrap() error { return m.err }
