package httpapi

import (
	"errors"
	"mime"
	"net/http"
)

// errTwoContentTypes is the reason a request's media type cannot be read:
// Content-Type came more than once. Which one the client meant cannot be
// known (a proxy may read the last where this server would read the
// first), so the request is refused, as two Authorization or two
// Idempotency-Key headers are (contract §10).
var errTwoContentTypes = errors.New("Content-Type more than once")

// mediaType is the media type of r's one Content-Type header, without
// parameters; errTwoContentTypes when it came more than once, and
// mime.ParseMediaType's error when it cannot be read (or is absent).
func mediaType(r *http.Request) (string, error) {
	values := r.Header.Values("Content-Type")
	if len(values) > 1 {
		return "", errTwoContentTypes
	}
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return mt, err
}
