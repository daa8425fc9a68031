package httpapi

import (
	"strconv"
	"strings"
)

// The media types GET /v1/reports answers in.
const (
	mediaJSON = "application/json"
	mediaCSV  = "text/csv"
)

// negotiate picks, of offers (in the server's order of preference), the
// one the Accept header values rate highest (RFC 9110 §12.5.1: the most
// specific range that matches an offer gives its weight; q=0 refuses
// it), and "" when none is acceptable. No Accept header accepts the first
// offer. A range that does not parse is skipped, as one that matches
// nothing.
func negotiate(accept []string, offers ...string) string {
	if len(accept) == 0 {
		return offers[0]
	}
	best, bestQ := "", 0.0
	for _, offer := range offers {
		q, specificity := 0.0, -1
		for _, header := range accept {
			for _, r := range strings.Split(header, ",") {
				rq, rs, ok := rangeWeight(r, offer)
				if ok && rs > specificity {
					q, specificity = rq, rs
				}
			}
		}
		if q > bestQ {
			best, bestQ = offer, q
		}
	}
	return best
}

// rangeWeight reads one media range of an Accept header against offer:
// its weight, how specific it is (2 type/subtype, 1 type/*, 0 */*), and
// whether it matches offer at all.
func rangeWeight(r, offer string) (q float64, specificity int, ok bool) {
	params := strings.Split(r, ";")
	mt := strings.ToLower(strings.TrimSpace(params[0]))
	typ, sub, found := strings.Cut(mt, "/")
	if !found || typ == "" || sub == "" {
		return 0, 0, false
	}
	offerType, _, _ := strings.Cut(offer, "/")
	switch {
	case mt == offer:
		specificity = 2
	case sub == "*" && typ == offerType:
		specificity = 1
	case mt == "*/*":
		specificity = 0
	default:
		return 0, 0, false
	}
	q = 1
	for _, p := range params[1:] {
		k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
		if strings.EqualFold(strings.TrimSpace(k), "q") {
			w, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil || w < 0 || w > 1 {
				return 0, 0, false
			}
			q = w
		}
	}
	return q, specificity, true
}
