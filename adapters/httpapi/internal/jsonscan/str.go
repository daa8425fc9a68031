package jsonscan

import (
	"bytes"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/lender/disbursementd/domain/filecheck"
)

// str reads a string whose opening quote is next. Only values may be views
// of the body: keys end up in error messages that can outlive the request.
// The closing quote and any backslash are found with bytes.IndexByte and
// control characters eight bytes at a time, so a 27 MB base64 string is
// crossed at memory speed, not a byte per step.
func (s *scanner) str(view bool) (string, error) {
	s.i++ // '"'
	start := s.i
	q := bytes.IndexByte(s.b[start:], '"')
	if q < 0 {
		q = len(s.b) - start // unterminated: the checks below say where it goes wrong
	}
	seg := s.b[start : start+q]
	if bs := bytes.IndexByte(seg, '\\'); bs >= 0 {
		seg = seg[:bs]
	}
	if c := filecheck.IndexBelow(seg, 0x20); c < len(seg) { // a control character, which JSON forbids unescaped
		s.i = start + c
		return "", s.fail("carácter de control sin escapar en un texto")
	}
	s.i = start + len(seg)
	switch {
	case s.i >= len(s.b):
		return "", s.fail("texto sin cerrar")
	case s.b[s.i] == '\\':
		return s.escaped(start)
	}
	raw := s.b[start:s.i]
	s.i++ // '"'
	if view && len(raw) >= viewThreshold {
		return unsafe.String(&raw[0], len(raw)), nil
	}
	if !view {
		if name, ok := s.names[string(raw)]; ok { // no allocation for the lookup
			return name, nil
		}
	}
	return s.keep(raw), nil
}

// arenaBlock is the size of the blocks that short strings are copied
// into: a report's short values cost an allocation a block, not one
// each.
const arenaBlock = 2048

// keep returns a copy of raw that does not refer to the body. A short
// one is copied into the scanner's current block (a new block once it
// is full); a block is never written again where a string handed out
// points, so every string stays as it was. A longer one is a copy of its
// own, so that a string kept for long pins no more than itself and a
// block.
func (s *scanner) keep(raw []byte) string {
	if len(raw) == 0 || len(raw) > arenaBlock/8 {
		return string(raw)
	}
	if cap(s.arena)-len(s.arena) < len(raw) {
		s.arena = make([]byte, 0, arenaBlock)
	}
	at := len(s.arena)
	s.arena = append(s.arena, raw...)
	return unsafe.String(&s.arena[at], len(raw))
}

// escaped reads the rest of a string that has an escape at s.i. Unescaped
// text is never longer than its escaped form, so one buffer the size of
// the string as sent holds it: a large escaped value (a Base64String
// written with "\/", as PHP's json_encode writes it) costs one copy of
// itself, not a chain of growing buffers and then a second copy. The text
// between two escapes is found and copied a run at a time, not a byte at
// a time: every 64th character of base64 is a '/'.
func (s *scanner) escaped(start int) (string, error) {
	end := closingQuote(s.b, s.i)
	buf := make([]byte, 0, end-start)
	buf = append(buf, s.b[start:s.i]...)
	// No escape that reads a control character is valid: the runs and
	// escapes before the first one are read, and the string is refused
	// there (or at an escape that reads it, as an escape), as when it
	// was read a byte at a time.
	ctl := s.i + filecheck.IndexBelow(s.b[s.i:end], 0x20)
	for {
		run := s.b[s.i:ctl]
		if bs := bytes.IndexByte(run, '\\'); bs >= 0 {
			run = run[:bs]
		}
		buf = append(buf, run...)
		s.i += len(run)
		if s.i == ctl {
			if ctl < end {
				return "", s.fail("carácter de control sin escapar en un texto")
			}
			break
		}
		if s.i+1 >= len(s.b) { // a backslash, the body's last byte
			return "", s.fail("texto sin cerrar")
		}
		e := s.b[s.i+1]
		s.i += 2
		switch e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, ok := s.hex4()
			if !ok {
				return "", s.fail("escape \\u no válido")
			}
			if utf16.IsSurrogate(r) {
				r = s.lowSurrogate(r)
			}
			buf = utf8.AppendRune(buf, r)
		default:
			return "", s.fail("escape no válido")
		}
	}
	if s.i >= len(s.b) {
		return "", s.fail("texto sin cerrar")
	}
	s.i++ // '"'
	// buf is this string's alone and never written again.
	return unsafe.String(unsafe.SliceData(buf), len(buf)), nil
}

// closingQuote returns the index of the first quote at or after i that no
// backslash escapes, or len(b).
func closingQuote(b []byte, i int) int {
	for {
		q := bytes.IndexByte(b[i:], '"')
		if q < 0 {
			return len(b)
		}
		q += i
		n := 0
		for n < q && b[q-1-n] == '\\' {
			n++
		}
		if n%2 == 0 {
			return q
		}
		i = q + 1
	}
}

// lowSurrogate completes the high surrogate hi with a following \uXXXX
// escape, as encoding/json does: a valid pair is one rune and consumes the
// escape; anything else is U+FFFD and the next escape is read on its own.
func (s *scanner) lowSurrogate(hi rune) rune {
	if len(s.b)-s.i < 6 || s.b[s.i] != '\\' || s.b[s.i+1] != 'u' {
		return utf8.RuneError
	}
	save := s.i
	s.i += 2
	if lo, ok := s.hex4(); ok {
		if r := utf16.DecodeRune(hi, lo); r != utf8.RuneError {
			return r
		}
	}
	s.i = save
	return utf8.RuneError
}

func (s *scanner) hex4() (rune, bool) {
	if len(s.b)-s.i < 4 {
		return 0, false
	}
	n, err := strconv.ParseUint(string(s.b[s.i:s.i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	s.i += 4
	return rune(n), true
}
