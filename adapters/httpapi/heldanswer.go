package httpapi

import "net/http"

// heldAnswer keeps an answer until it is sent. net/http writes an answer
// past its 4 KiB buffer to the connection from inside the handler, which
// blocks while the client reads nothing: a report's slot and its body's
// bytes, given back only after, were held until http.write_timeout (the
// twenty-first session's review: 40 connections that never read their
// 46 KB 422s held all 32 slots, and every other partner met 503
// overloaded). The answer, at most 64 KiB (writeJSON), is written after.
type heldAnswer struct {
	w      http.ResponseWriter
	status int
	body   []byte
}

func (h *heldAnswer) Header() http.Header { return h.w.Header() }

func (h *heldAnswer) WriteHeader(code int) {
	if h.status == 0 {
		h.status = code
	}
}

func (h *heldAnswer) Write(b []byte) (int, error) {
	h.WriteHeader(http.StatusOK)
	h.body = append(h.body, b...)
	return len(b), nil
}

// Unwrap lets http.ResponseController reach the connection.
func (h *heldAnswer) Unwrap() http.ResponseWriter { return h.w }

// holdUntil keeps the answer written on the writer it returns until
// finish, which calls done (it gives a place back: a look-up's) and then
// writes it: a client that reads nothing holds no place while the answer
// waits for it (as runReport's heldAnswer). Deferred, finish also runs on
// a panic: an answer whose status was already kept goes out, as it would
// have, and otherwise the 500 is observe's.
func holdUntil(w http.ResponseWriter, done func()) (http.ResponseWriter, func()) {
	h := &heldAnswer{w: w}
	return h, func() {
		done()
		h.send()
	}
}

// send writes the answer kept, if any.
func (h *heldAnswer) send() {
	if h.status == 0 {
		return
	}
	h.w.WriteHeader(h.status)
	_, _ = h.w.Write(h.body)
}
