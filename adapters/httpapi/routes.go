package httpapi

import (
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/go-chi/chi/v5"
)

// problemNotFound and problemNotAllowed answer a path no route has, and
// a method its route does not have (with Allow), as problems: under /v1
// and in the decision API.
func problemNotFound(w http.ResponseWriter, r *http.Request) {
	writeProblem(w, r, http.StatusNotFound, "not_found", "Ruta no encontrada", nil)
}

func (rt *routes) problemNotAllowed(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Allow", rt.allow(r.URL.Path))
	writeProblem(w, r, http.StatusMethodNotAllowed, "method_not_allowed", "Método no permitido", nil)
}

// routes registers handlers and remembers each path's methods, so a 405
// names what the path really allows; notAllowed answers a 405.
type routes struct {
	mux        *chi.Mux
	allowed    map[string][]string
	methods    []string // every method registered, sorted: what pattern asks the router about
	notAllowed http.HandlerFunc
}

func (rt *routes) handle(method, path string, h http.HandlerFunc) {
	if strings.Contains(path, "{") {
		h = rt.staticFirst(h)
	}
	rt.mux.Method(method, path, h)
	rt.allowed[path] = append(rt.allowed[path], method)
	if !slices.Contains(rt.methods, method) {
		rt.methods = append(rt.methods, method)
		slices.Sort(rt.methods)
	}
}

// staticFirst makes a path that names a static route answer as that
// route: chi, finding the static /v1/reports/validate without the method
// asked, goes on to the pattern beside it (/v1/reports/{id}), so a GET of
// it would be a look-up of report "validate" (a 404) instead of the 405
// it is (contract §10).
func (rt *routes) staticFirst(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if _, static := rt.allowed[r.URL.Path]; static {
			rt.notAllowed(w, r)
			return
		}
		h(w, r)
	}
}

// get serves GET and HEAD (probes and curl -I expect HEAD to answer).
func (rt *routes) get(path string, h http.HandlerFunc) {
	rt.handle(http.MethodGet, path, h)
	rt.handle(http.MethodHead, path, h)
}

// allow names the methods of the route that path matches, OPTIONS
// included.
func (rt *routes) allow(path string) string {
	methods := append([]string{http.MethodOptions}, rt.allowed[rt.pattern(path)]...)
	sort.Strings(methods)
	return strings.Join(methods, ", ")
}

// pattern returns the registered pattern that path matches, or "" when
// none does: a static route's path is its own pattern (as staticFirst
// answers it), else the router finds it (chi's Mux.Find) for the first
// registered method that has a route there. Requests the router does
// not route (preflights, 404s and 405s) are labelled with it, so their
// labels still come from the fixed set of patterns.
func (rt *routes) pattern(path string) string {
	if _, static := rt.allowed[path]; static {
		return path
	}
	for _, m := range rt.methods {
		if p := rt.mux.Find(chi.NewRouteContext(), m, path); p != "" {
			return p
		}
	}
	return ""
}

// isV1 reports whether path is under /v1, whose answers are problems and
// whose CORS headers are its own.
func isV1(path string) bool { return path == "/v1" || strings.HasPrefix(path, "/v1/") }
