package pdforacle

import (
	"encoding/hex"
	"regexp"
	"slices"
	"strings"
)

// qpdfWalk adds to found the active names (as keys or values) and the
// script URIs in o, a value of qpdf's JSON (version 2): names are
// strings that start with a solidus, strings start with "u:" (text) or
// "b:" (hex bytes), dictionaries' keys are names, and a stream is
// {"stream": {"dict": …}}, another object {"value": …}.
func qpdfWalk(o any, key string, found []string, depth int) []string {
	if depth > 100 {
		return found
	}
	switch v := o.(type) {
	case string:
		if name, ok := strings.CutPrefix(v, "/"); ok {
			return note(found, name)
		}
		if key == "/URI" || key == "/F" {
			if s := qpdfString(v); scriptURI.MatchString(strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(s)) {
				return appendOnce(found, key[1:]+" "+s[:min(len(s), 40)])
			}
		}
	case []any:
		for _, e := range v {
			found = qpdfWalk(e, key, found, depth+1)
		}
	case map[string]any:
		for k, e := range v {
			if name, ok := strings.CutPrefix(k, "/"); ok {
				found = note(found, name)
			}
			found = qpdfWalk(e, k, found, depth+1)
		}
	}
	return found
}

// qpdfString decodes a string of qpdf's JSON.
func qpdfString(v string) string {
	if s, ok := strings.CutPrefix(v, "u:"); ok {
		return s
	}
	if h, ok := strings.CutPrefix(v, "b:"); ok {
		b, _ := hex.DecodeString(h)
		return string(b)
	}
	return v
}

// scriptURI is a URI a viewer would run as a script (or hand to a
// browser that does): a URL parser drops C0 controls and spaces before
// it, and tabs and line breaks anywhere in it (removed before matching).
var scriptURI = regexp.MustCompile(`(?i)^[\x00-\x20]*(javascript|vbscript):`)

// note adds name to found, once, when it is an active name.
func note(found []string, name string) []string {
	if slices.Contains(activeNames, name) {
		return appendOnce(found, name)
	}
	return found
}

func appendOnce(found []string, s string) []string {
	if slices.Contains(found, s) {
		return found
	}
	return append(found, s)
}
