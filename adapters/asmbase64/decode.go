// Package asmbase64 decodes a report's file with the AVX2 base64 decoder
// of github.com/segmentio/asm: the file check's (filecheck.Decoder), nine
// times the standard library's speed here (BenchmarkDecode;
// docs/performance.md). On a CPU without AVX2 the module decodes with the
// standard library's; on arm64 it has a NEON decoder, which no test here
// runs (the service is built and tested for amd64). The
// standard library stays the plain decoder: the domain's default, used
// where this one is not wired (tests, tools) and inside this one for what
// its vector loop leaves (the last 13 to 44 characters, and everything
// from the first character outside the alphabet on, CR and LF included).
package asmbase64

import (
	"encoding/base64"

	asm "github.com/segmentio/asm/base64"

	"github.com/lender/disbursementd/domain/filecheck"
)

var _ filecheck.Decoder = Decode

// Decode decodes base64 text of the standard alphabet without padding
// into dst as base64.RawStdEncoding.Decode does: the same bytes and
// count, CR and LF skipped, an error for the same texts (its offset
// counted from where the vector loop stopped). On amd64 the loop stores
// 32 bytes for each 24 it decodes and looks only at the source's length,
// so it may write up to 8 bytes past the count it returns, within the
// decoded size of src (len(src)*3/4): a dst shorter than that (text with
// line breaks, in a dst sized to what it makes) is given to the standard
// library's decoder, which answers as it does.
func Decode(dst, src []byte) (int, error) {
	if len(dst) < base64.RawStdEncoding.DecodedLen(len(src)) {
		return base64.RawStdEncoding.Decode(dst, src)
	}
	return asm.RawStdEncoding.Decode(dst, src)
}
