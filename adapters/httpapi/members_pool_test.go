package httpapi

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// ownMembers is a ports.ReportService that checks, several times while
// its step runs, that every member it was handed is its own body's:
// body n has keys k0..k(n-1), each with the value "Tn-…" of that body.
type ownMembers struct{ foreign atomic.Int64 }

func (o *ownMembers) Submit(_ context.Context, sub ports.Submission) (domain.Receipt, error) {
	check := func() {
		want := sub.Members[0].Value.Text
		if !strings.HasPrefix(want, fmt.Sprintf("T%d-", len(sub.Members))) {
			o.foreign.Add(1)
			return
		}
		for i, m := range sub.Members {
			if m.Value.Text != want || m.Key != fmt.Sprintf("k%d", i) {
				o.foreign.Add(1)
				return
			}
		}
	}
	for range 4 {
		check()
		runtime.Gosched()
	}
	if rand.IntN(50) == 0 {
		panic("a step that panics gives its members back too")
	}
	return domain.Receipt{StoredReceipt: domain.StoredReceipt{ID: 1}}, nil
}

// TestPooledMembersAreEachRequestsOwn: the member slices inSlot takes from
// membersPool and gives back are never seen by two requests at once. 16
// clients send bodies of 1 to 130 members (past the pooled capacity, past
// the bound), some malformed, and some steps panic; each step must see
// only its own body's members, under the race detector too.
func TestPooledMembersAreEachRequestsOwn(t *testing.T) {
	t.Parallel()
	h := newHarness(t, Limits{MaxMembers: 120})
	own := &ownMembers{}
	h.rebuild(t, func(s *Server) { s.Reports = own })
	var wg sync.WaitGroup
	var stored atomic.Int64
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 100 {
				n := 1 + rand.IntN(130)
				value := fmt.Sprintf("T%d-%d-%d", n, g, j)
				var b strings.Builder
				b.WriteByte('{')
				for i := range n {
					if i > 0 {
						b.WriteByte(',')
					}
					fmt.Fprintf(&b, "%q:%q", fmt.Sprintf("k%d", i), value)
				}
				if rand.IntN(10) == 0 {
					b.WriteString(",}") // refused after members were read into the slice
				} else {
					b.WriteByte('}')
				}
				if a := h.do(t, "POST", PartnerPath, reportHeaders, b.String()); a.status == 200 {
					stored.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if n := own.foreign.Load(); n > 0 {
		t.Fatalf("%d steps saw members that were not their body's", n)
	}
	if stored.Load() == 0 {
		t.Fatal("no report reached its step: the test checked nothing")
	}
}
