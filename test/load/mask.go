package main

import (
	"strings"

	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/domain"
)

// masked returns command-line words and KEY=VALUE settings with every
// secret hidden, as the service's own start-up log hides them: the value
// of a setting whose key is secret becomes ***, and a DSN's or URL's
// password ***. The results files are committed, so nothing in them may
// be a credential, even a throwaway one.
func masked(words []string) []string {
	redact := map[string]string{}
	for _, s := range config.Settings() {
		redact[s.Env] = s.Redact
	}
	out := make([]string, len(words))
	for i, w := range words {
		prefix := ""
		if rest, ok := strings.CutPrefix(w, "-env="); ok {
			prefix, w = "-env=", rest
		}
		if rest, ok := strings.CutPrefix(w, "-dsn="); ok {
			out[i] = "-dsn=" + domain.MaskCredentials(rest)
			continue
		}
		if i > 0 && (words[i-1] == "-dsn" || words[i-1] == "--dsn") {
			out[i] = domain.MaskCredentials(w)
			continue
		}
		key, value, ok := strings.Cut(w, "=")
		switch {
		case !ok:
		case redact[key] == "secret":
			w = key + "=***"
		case redact[key] == "dsn", redact[key] == "url":
			w = key + "=" + domain.MaskCredentials(value)
		}
		out[i] = prefix + w
	}
	return out
}
