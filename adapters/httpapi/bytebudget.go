package httpapi

import (
	"sync"
)

// heldPerBodyByte is what a report holds in memory for each byte of its
// body, at most: the body itself, and one more copy of it — a string
// with escapes (a Base64String written with "\/") is unescaped into a
// buffer of its own. A decoded file is never held whole: the file checks
// decode and hash in fixed windows, and the upload stores decode again
// as they write. Nothing else a report holds grows with its body.
const heldPerBodyByte = 2

// byteBudget bounds the memory that report bodies, and what is decoded
// from them, hold at once (contract §10, "Bytes in flight"): a report
// reserves heldPerBodyByte times each buffer its body is read into,
// before the buffer is allocated, as the body arrives (readBody), and
// gives the hold back when it has been answered. What a body
// declares reserves nothing: a client that declares 32 MiB and sends
// 60 KiB holds what 64 KiB needs. A hold that does not fit is
// refused, never waited for: the report gets 503 overloaded at once, as
// when http.max_in_flight is full. One partner (partnerOf: its NIT, every
// user name of it together) holds at most share, a quarter of the budget
// or one largest body's hold if that is more (partnerShare), so
// that a handful of its names cannot add up to the whole. A partner's
// entry exists only while it holds bytes.
type byteBudget struct {
	mu    sync.Mutex
	max   int64
	share int64
	used  int64
	by    map[string]int64
	gauge func(used int64) // told used at each change, for /metrics
}

func newByteBudget(max, share int64, gauge func(used int64)) *byteBudget {
	return &byteBudget{max: max, share: share, by: map[string]int64{}, gauge: gauge}
}

// partnerShare is the most of a budget of total bytes one partner may
// hold when the largest body is maxBody bytes: a quarter, or one largest
// body's hold when that is more (it is at most half: New refuses a
// budget below two of them).
func partnerShare(total, maxBody int64) int64 { return max(total/4, heldPerBodyByte*maxBody) }

// hold is one report's share of the budget.
type hold struct {
	b       *byteBudget
	partner string
	held    int64
}

func (b *byteBudget) hold(partner string) *hold {
	return &hold{b: b, partner: partner}
}

// cover makes the hold cover what a body buffer of n bytes needs
// (never less than it holds); false, and nothing changed, when that does
// not fit in the budget beside the other holds, or in its
// partner's share.
func (r *hold) cover(n int64) bool {
	want := n * heldPerBodyByte
	if want <= r.held {
		return true
	}
	b := r.b
	b.mu.Lock()
	defer b.mu.Unlock()
	more := want - r.held
	if b.used+more > b.max || b.by[r.partner]+more > b.share {
		return false
	}
	b.used += more
	b.by[r.partner] += more
	r.held = want
	b.gauge(b.used)
	return true
}

// release gives the hold back; the report's body and what was
// decoded from it are no longer used.
func (r *hold) release() {
	if r.held == 0 {
		return
	}
	b := r.b
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used -= r.held
	if b.by[r.partner] -= r.held; b.by[r.partner] <= 0 {
		delete(b.by, r.partner)
	}
	r.held = 0
	b.gauge(b.used)
}
