package httpapi

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/lender/disbursementd/domain"
)

// queryRules are the query parameters of a /v1 list: known names them,
// and repeatable those that may come more than once (each value then
// counts, as OpenAPI's form style with explode writes a list).
type queryRules struct {
	known      []string
	repeatable []string
}

// queryParam is one parameter of a query string, decoded.
type queryParam struct{ key, val string }

// maxRepeats bounds how many times a repeatable parameter may come.
const maxRepeats = 16

// read returns the parameters of raw in their order. One that is
// unknown, repeated (but a repeatable one, up to maxRepeats), empty or
// malformed is an invalid_request naming it, never ignored: a misspelt
// filter must not list everything as if it had matched.
func (q queryRules) read(raw string) ([]queryParam, error) {
	var out []queryParam
	seen := map[string]int{}
	for raw != "" {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		if pair == "" {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		key, err := url.QueryUnescape(k)
		if err != nil {
			return nil, domain.InvalidParameter(domain.Clip(k), "nombre mal codificado")
		}
		if key == "" { // "?=1": named by the pair itself
			return nil, domain.InvalidParameter(domain.Clip(pair), "parámetro sin nombre")
		}
		val, err := url.QueryUnescape(v)
		repeatable := slices.Contains(q.repeatable, key)
		switch {
		case len(q.known) == 0:
			return nil, domain.InvalidParameter(domain.Clip(key), "esta ruta no tiene parámetros")
		case !slices.Contains(q.known, key):
			return nil, domain.InvalidParameter(domain.Clip(key), "parámetro desconocido; use "+q.names())
		case seen[key] > 0 && !repeatable:
			return nil, domain.InvalidParameter(key, "llegó más de una vez")
		case seen[key] >= maxRepeats:
			return nil, domain.InvalidParameter(key, "llegó más de "+strconv.Itoa(maxRepeats)+" veces")
		case err != nil:
			return nil, domain.InvalidParameter(key, "valor mal codificado")
		case val == "":
			return nil, domain.InvalidParameter(key, "sin valor")
		}
		seen[key]++
		out = append(out, queryParam{key, val})
	}
	return out, nil
}

// names lists the known parameters for a message: "a, b o c".
func (q queryRules) names() string {
	n := len(q.known)
	return strings.Join(q.known[:n-1], ", ") + " o " + q.known[n-1]
}

// pageLimit reads a page's limit; its bounds are the use case's, but a
// limit that is not a number, or 0, is refused here with the bound's
// words.
func pageLimit(val string) (int, error) {
	n, err := strconv.Atoi(val)
	if err != nil || n == 0 {
		return 0, domain.InvalidParameter("limit", domain.PageLimitBound.Es)
	}
	return n, nil
}

// noParams wraps the handler of a /v1 or decision-API route that takes no
// query parameter: one that comes anyway is 400 invalid_request naming
// it, before anything else is done (a POST …/decision?dry_run=true must
// not decide; a redeliver?endpoint=we_x must not send to every
// endpoint), as the lists answer a parameter not theirs. fail writes the
// error in the route's own form (v1Error, adminError).
func noParams(h http.HandlerFunc, fail func(http.ResponseWriter, *http.Request, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.URL.RawQuery != "" {
			if _, err := (queryRules{}).read(r.URL.RawQuery); err != nil {
				fail(w, r, err)
				return
			}
		}
		h(w, r)
	}
}
