package domain

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The bounds a partner or an operator meets, each beside the words that
// state it: the one place each is written. Use cases, adapters and config
// call these rules and quote these words; none states a bound again.

// Lengths, counts and durations of the contract.
const (
	// CreditNumberMaxLen is the longest credit number: it names a file
	// (§2), so fields.csv may narrow it, never widen it.
	CreditNumberMaxLen = 30
	// IdempotencyKeyMaxLen is the longest Idempotency-Key header (§7).
	IdempotencyKeyMaxLen = 255
	// MaxUserNameBytes and MaxPasswordBytes bound what a login attempt
	// may carry (§7): anything longer is refused before any password
	// work. A user name is at most MaxUserNameBytes when added too.
	MaxUserNameBytes = 64
	MaxPasswordBytes = 1024
	// MinPasswordLength and MaxPasswordLength bound a new password, in
	// bytes (users add and passwd); 72 is bcrypt's limit.
	MinPasswordLength = 12
	MaxPasswordLength = 72
	// PageDefault and PageMax bound a page of receipts (§8): the receipts
	// in a page when the partner names no limit, and the most it may hold.
	PageDefault = 100
	PageMax     = 500
	// PageFieldsMax bounds a page that carries each report's fields
	// (include=fields, or the CSV export): a report with its fields is
	// about ten times a receipt's bytes, and the page's fields are read
	// in one statement inside one look-up's slot and timeout.
	PageFieldsMax = 100
	// MaxTokenLifetime is the longest an issued token may live, and the
	// longest exp - iat accepted (§5).
	MaxTokenLifetime = 24 * time.Hour
	// MinKeyTTL is the shortest time an Idempotency-Key (or a report's
	// identity) is remembered (§7).
	MinKeyTTL = 24 * time.Hour
)

// A Bound is what a value must be, in the words of each reader: Es
// completes a partner's answer ("Parámetro limit inválido: un entero de 1
// a 500"), En an operator's ("invalid limit: 1 to 500"). A bound only an
// operator meets has no Es.
type Bound struct{ Es, En string }

// The bounds, in words. Each is built from the constants above.
var (
	// CreditNumberBound is what ValidCreditNumber accepts.
	CreditNumberBound = creditNumberBound(1, CreditNumberMaxLen)
	// IdempotencyKeyBound is what ValidIdempotencyKey accepts.
	IdempotencyKeyBound = Bound{
		Es: "de 1 a " + strconv.Itoa(IdempotencyKeyMaxLen) + " caracteres ASCII imprimibles",
		En: "1 to " + strconv.Itoa(IdempotencyKeyMaxLen) + " printable ASCII characters",
	}
	// UserNameBound is what ValidateUserName accepts.
	UserNameBound = Bound{En: "1 to " + strconv.Itoa(MaxUserNameBytes) + " printable ASCII characters without spaces"}
	// PageLimitBound is the limit of a page of receipts.
	PageLimitBound = Bound{Es: "un entero de 1 a " + strconv.Itoa(PageMax), En: "1 to " + strconv.Itoa(PageMax)}
	// PageFieldsLimitBound is the limit of a page with fields.
	PageFieldsLimitBound = Bound{Es: "un entero de 1 a " + strconv.Itoa(PageFieldsMax) + " con include=fields o text/csv",
		En: "1 to " + strconv.Itoa(PageFieldsMax) + " with include=fields or text/csv"}
	// PasswordBound is what CheckNewPassword accepts.
	PasswordBound = Bound{En: strconv.Itoa(MinPasswordLength) + " to " + strconv.Itoa(MaxPasswordLength) + " bytes long"}
	// TokenLifetimeBound is what CheckTokenLifetime accepts.
	TokenLifetimeBound = Bound{En: "more than 0 and at most " + shortDuration(MaxTokenLifetime)}
	// KeyTTLBound is what CheckKeyTTL accepts.
	KeyTTLBound = Bound{En: "at least " + shortDuration(MinKeyTTL) + " (the contract keeps keys that long)"}
)

// creditNumberBound is a credit number of lo to hi characters: the
// catalogue's field may narrow CreditNumberBound.
func creditNumberBound(lo, hi int64) Bound {
	l, h := strconv.FormatInt(lo, 10), strconv.FormatInt(hi, 10)
	return Bound{Es: "de " + l + " a " + h + " caracteres entre A-Z, a-z, 0-9 y guion", En: l + " to " + h + " of A-Z, a-z, 0-9 and -"}
}

// shortDuration writes d as an operator writes it: 24h, not 24h0m0s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}

// ValidCreditNumber reports whether s may name a file: 1 to
// CreditNumberMaxLen of A-Z a-z 0-9 and '-'. Nothing else, so no path, dot
// or look-alike passes.
func ValidCreditNumber(s string) bool {
	if len(s) < 1 || len(s) > CreditNumberMaxLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// ValidIdempotencyKey checks an Idempotency-Key header: 1 to
// IdempotencyKeyMaxLen printable ASCII characters.
func ValidIdempotencyKey(k string) bool {
	if len(k) < 1 || len(k) > IdempotencyKeyMaxLen {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x20 || k[i] > 0x7e {
			return false
		}
	}
	return true
}

// LoginFits reports whether a login attempt's user name and password are
// within what an attempt may carry (§7): both present, at most
// MaxUserNameBytes and MaxPasswordBytes. An attempt that does not fit is
// refused before any password work.
func LoginFits(user, password string) bool {
	return user != "" && password != "" && len(user) <= MaxUserNameBytes && len(password) <= MaxPasswordBytes
}

// CheckNewPassword is the rule of a new password (users add and passwd):
// MinPasswordLength to MaxPasswordLength bytes. The error is of kind
// ErrInvalidInput, code weak_password, and never quotes the password.
func CheckNewPassword(password string) error {
	if len(password) < MinPasswordLength || len(password) > MaxPasswordLength {
		return NewError(ErrInvalidInput, "weak_password", "the password must be "+PasswordBound.En)
	}
	return nil
}

// CheckTokenLifetime is the rule of an issued token's lifetime
// (auth.token_ttl): above 0 and at most MaxTokenLifetime.
func CheckTokenLifetime(d time.Duration) error {
	if d <= 0 || d > MaxTokenLifetime {
		return NewError(ErrInvalidInput, "invalid_token_lifetime", "token lifetime "+d.String()+", want "+TokenLifetimeBound.En)
	}
	return nil
}

// CheckKeyTTL is the rule of how long idempotency keys are remembered
// (idempotency.ttl): at least MinKeyTTL.
func CheckKeyTTL(d time.Duration) error {
	if d < MinKeyTTL {
		return NewError(ErrInvalidInput, "invalid_key_ttl", "key lifetime "+d.String()+", want "+KeyTTLBound.En)
	}
	return nil
}

// CheckFileTypes is the rule of the allowed file types
// (uploads.allowed_types): some of FileTypes, by name.
func CheckFileTypes(allowed []string) error {
	known := FileTypes()
	if len(allowed) == 0 {
		return fileRulesError("no allowed type, want some of %s", strings.Join(known, ", "))
	}
	for _, t := range allowed {
		if !slices.Contains(known, t) {
			return fileRulesError("allowed type %q is not one of %s", t, strings.Join(known, ", "))
		}
	}
	return nil
}

// CheckMaxFileBytes is the rule of the largest file allowed
// (uploads.max_file_bytes): at least 1 byte. The default is config's.
func CheckMaxFileBytes(n int64) error {
	if n < 1 {
		return fileRulesError("maximum file size %d, want at least 1 byte", n)
	}
	return nil
}

// CheckMaxImagePixels is the rule of the most pixels an image may declare
// (uploads.max_image_pixels): at least 1. The default is config's.
func CheckMaxImagePixels(n int64) error {
	if n < 1 {
		return fileRulesError("maximum image pixels %d, want at least 1", n)
	}
	return nil
}

func fileRulesError(format string, a ...any) error {
	return NewError(ErrInvalidInput, "invalid_file_rules", fmt.Sprintf(format, a...))
}

// The bounds of decisions, events and webhooks (contract §11).
const (
	// MaxReasonChars is the longest reason of a rejection, in characters
	// after NFC.
	MaxReasonChars = 500
	// MaxWebhookURLBytes is the longest webhook endpoint URL.
	MaxWebhookURLBytes = 2048
	// MaxWebhookDescriptionChars is the longest description of a webhook
	// endpoint, in characters.
	MaxWebhookDescriptionChars = 500
	// MaxAttemptsListed is how many of an endpoint's newest attempts are
	// kept and listed.
	MaxAttemptsListed = 100
	// MaxReasonCodeLen is the longest configured reason code
	// (decisions.reason_codes), in bytes of a-z, 0-9 and _.
	MaxReasonCodeLen = 64
	// SecretOverlap is how long a rotated webhook secret keeps signing
	// beside the new one (§11: 24 h).
	SecretOverlap = 24 * time.Hour
)

// MaxQuoted is the most characters of something a client sent (a key, a
// value) that a message quotes (Clip).
const MaxQuoted = 64

// The words of those bounds.
var (
	// ReasonBound is what a rejection's reason must be.
	ReasonBound = Bound{
		Es: "de 1 a " + strconv.Itoa(MaxReasonChars) + " caracteres",
		En: "1 to " + strconv.Itoa(MaxReasonChars) + " characters",
	}
	// ReasonCodesBound is what decisions.reason_codes must hold.
	ReasonCodesBound = Bound{En: "one or more codes, each 1 to " + strconv.Itoa(MaxReasonCodeLen) + " of a-z, 0-9 and _ starting with a letter, none twice"}
	// WebhookURLBound is what a webhook endpoint's URL must be.
	WebhookURLBound = Bound{
		Es: "una URL https de hasta " + strconv.Itoa(MaxWebhookURLBytes) + " bytes, sin usuario ni contraseña ni fragmento, hacia una dirección pública",
		En: "an https URL of at most " + strconv.Itoa(MaxWebhookURLBytes) + " bytes, without user information or fragment, to a public address",
	}
	// WebhookDescriptionBound is what an endpoint's description must be.
	WebhookDescriptionBound = Bound{Es: "hasta " + strconv.Itoa(MaxWebhookDescriptionChars) + " caracteres"}
)
