package domain

import (
	"strings"
	"unicode"
)

// NormalizeKey folds a field name so that the spellings a partner may use
// land on one key: composed or decomposed accents, case, accents themselves
// and runs of white space. "Número de Crédito", "Numero de Credito" and
// "NÚMERO  DE CRÉDITO" all become "numero de credito".
func NormalizeKey(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case unicode.Is(unicode.Mn, r):
			continue // a combining mark: the accent of a decomposed letter
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		}
		if base, ok := latinBase[r]; ok {
			r = base
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// latinBase maps the precomposed Latin letters (Latin-1 Supplement and
// the Latin Extended-A letters Spanish text meets) to their base letter.
var latinBase = func() map[rune]rune {
	m := map[rune]rune{}
	add := func(base rune, letters string) {
		for _, r := range letters {
			m[r] = base
		}
	}
	add('a', "àáâãäåāăą")
	add('A', "ÀÁÂÃÄÅĀĂĄ")
	add('c', "çćĉċč")
	add('C', "ÇĆĈĊČ")
	add('e', "èéêëēĕėęě")
	add('E', "ÈÉÊËĒĔĖĘĚ")
	add('i', "ìíîïĩīĭįı")
	add('I', "ÌÍÎÏĨĪĬĮİ")
	add('n', "ñńņň")
	add('N', "ÑŃŅŇ")
	add('o', "òóôõöøōŏő")
	add('O', "ÒÓÔÕÖØŌŎŐ")
	add('u', "ùúûüũūŭůűų")
	add('U', "ÙÚÛÜŨŪŬŮŰŲ")
	add('y', "ýÿŷ")
	add('Y', "ÝŸŶ")
	return m
}()
