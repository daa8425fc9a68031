package soak

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/lender/disbursementd/adapters/httpapi"
)

// answer is what one POST of a report got.
type answer struct {
	status     int
	code       string // the 503's or 409's code
	id         int64
	file       string
	replayed   bool
	retryAfter time.Duration
	err        error // no answer: refused, cut, timed out
	raw        string
}

// kind names an answer for the counts: "200", "200 replayed", "503
// outcome_unknown", "no answer"…
func (a answer) kind() string {
	switch {
	case a.err != nil:
		return "no answer"
	case a.status == http.StatusOK && a.replayed:
		return "200 replayed"
	case a.code != "":
		return fmt.Sprintf("%d %s", a.status, a.code)
	}
	return strconv.Itoa(a.status)
}

// post sends r once to the replica at url.
func (s *soak) post(ctx context.Context, url string, r *report) answer {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+httpapi.PartnerPath, bytes.NewReader(r.body))
	if err != nil {
		return answer{err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authentication-Type", "bearer "+s.token)
	if r.key != "" {
		req.Header.Set("Idempotency-Key", r.key)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return answer{err: err}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	a := answer{status: resp.StatusCode, replayed: resp.Header.Get("Idempotent-Replayed") == "true", raw: string(raw), err: err}
	if secs, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil {
		a.retryAfter = time.Duration(secs) * time.Second
	}
	var body struct {
		Code string `json:"code"`
		ID   int64  `json:"id"`
		File string `json:"file"`
	}
	if json.Unmarshal(raw, &body) == nil {
		a.code, a.id, a.file = body.Code, body.ID, body.File
	}
	return a
}

// deliver sends r until it gets a 200, as a partner following the docs
// does: after a 503, a 409 or no answer, the same body with the same
// Idempotency-Key (or again none), on the next replica, after Retry-After
// or a short pause. Any other answer ends it as a violation; so does
// running past the drain's deadline. It reports whether r got its 200.
func (s *soak) deliver(ctx context.Context, r *report, start int) bool {
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			s.res.retries.Add(1)
		}
		a := s.post(ctx, s.fleet.url(start+attempt), r)
		s.res.tally(a.kind())
		if a.err != nil || (a.status == http.StatusServiceUnavailable && a.code != "file_store_failed") {
			s.res.unavailable(time.Now(), a.kind()) // not the bucket's faults: the database's
		}
		switch {
		case a.err == nil && a.status == http.StatusOK:
			r.acknowledged(a)
			return true
		case a.err == nil && a.status != http.StatusServiceUnavailable && a.status != http.StatusConflict:
			s.res.violation("report %d (%s): answered %d %.300s", r.n, r.credit, a.status, a.raw)
			return false
		case ctx.Err() != nil:
			return false
		}
		if d := s.drainDeadline(); !d.IsZero() && time.Now().After(d) {
			s.res.violation("report %d (%s): no 200 by the end of the drain; last answer %s %v %.200s",
				r.n, r.credit, a.kind(), a.err, strings.TrimSpace(a.raw))
			return false
		}
		pause := a.retryAfter
		switch {
		case a.err != nil:
			pause = 100 * time.Millisecond
		case pause <= 0 || pause > 2*time.Second:
			pause = 250*time.Millisecond + rand.N(250*time.Millisecond)
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(pause):
		}
	}
}
