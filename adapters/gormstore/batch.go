package gormstore

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lender/disbursementd/domain"
)

// committer is the group commit: StoreReport queues a request, and a
// writer that is free takes what is queued (up to maxBatch) into one
// transaction and one durable commit. There is no timer: at concurrency 1
// a report is taken at once, alone; under load the reports that arrived
// while the writers were busy share the next commit.
type committer struct {
	s        *Store
	queue    chan *request
	maxBatch int
	stop     chan struct{} // closed by close: writers take no new batch
	stopped  chan struct{} // closed once the writers are gone and the queue drained
	wg       sync.WaitGroup
	once     sync.Once
}

// request is one StoreReport waiting for its batch.
type request struct {
	ctx   context.Context
	r     domain.StagedReport
	rec   domain.IdempotencyRecord
	state atomic.Int32 // queued, taken or abandoned
	done  chan result  // buffered: the writer never waits for the caller
}

const (
	queued int32 = iota
	taken
	abandoned
)

// outcome is what a batch did with one request.
type outcome int

const (
	stored     outcome = iota // committed; id is the row's
	conflicted                // the key was taken; nothing of this request was kept
	failed                    // nothing was stored; err says why
	unknown                   // the commit failed: it may or may not have landed
)

type result struct {
	kind outcome
	id   int64
	err  error
}

// maxBatchRetries bounds the re-runs of a batch that MySQL chose as a
// deadlock victim or whose lock wait timed out.
const maxBatchRetries = 3

var errClosed = errors.New("store closed")

func newCommitter(s *Store, writers, maxBatch int) *committer {
	c := &committer{s: s, queue: make(chan *request, writers*maxBatch), maxBatch: maxBatch,
		stop: make(chan struct{}), stopped: make(chan struct{})}
	c.wg.Add(writers)
	for range writers {
		go c.writer()
	}
	return c
}

// submit queues a request and waits for its result, within ctx. A caller
// that gives up before its batch started leaves nothing behind; one whose
// batch is under way cannot know its outcome.
func (c *committer) submit(ctx context.Context, q *request) result {
	select {
	case c.queue <- q:
	case <-ctx.Done():
		return result{kind: failed, err: ctx.Err()}
	case <-c.stop:
		return result{kind: failed, err: errClosed}
	}
	var gaveUp error
	select {
	case res := <-q.done:
		return res
	case <-ctx.Done():
		gaveUp = ctx.Err()
	case <-c.stopped:
		gaveUp = errClosed
	}
	if q.state.CompareAndSwap(queued, abandoned) {
		return result{kind: failed, err: gaveUp}
	}
	if gaveUp == errClosed {
		// Taken before the writers stopped: its batch ran to the end.
		return <-q.done
	}
	select {
	case res := <-q.done:
		return res // answered as the caller gave up
	default:
		return result{kind: unknown, err: gaveUp}
	}
}

func (c *committer) writer() {
	defer c.wg.Done()
	for {
		select {
		case <-c.stop:
			return
		case first := <-c.queue:
			batch := []*request{first}
		fill:
			for len(batch) < c.maxBatch {
				select {
				case q := <-c.queue:
					batch = append(batch, q)
				default:
					break fill
				}
			}
			c.run(batch)
		}
	}
}

// close stops the writers after their current batch and fails what is
// still queued.
func (c *committer) close() {
	c.once.Do(func() {
		close(c.stop)
		c.wg.Wait()
		for {
			select {
			case q := <-c.queue:
				if q.state.CompareAndSwap(queued, taken) {
					q.done <- result{kind: failed, err: errClosed}
				}
				continue
			default:
			}
			break
		}
		close(c.stopped)
	})
}

// run commits one batch. Requests whose caller has given up are skipped.
// A row the database refuses is taken out and the rest run again; a
// deadlock or lock-wait timeout runs the batch again (bounded); any other
// failure before the commit fails every request (nothing was stored); a
// failed commit leaves each request's outcome to be read back.
func (c *committer) run(batch []*request) {
	live := batch[:0]
	for _, q := range batch {
		if !q.state.CompareAndSwap(queued, taken) {
			continue
		}
		if err := q.ctx.Err(); err != nil {
			q.done <- result{kind: failed, err: err}
			continue
		}
		if d, ok := q.ctx.Deadline(); ok && time.Until(d) < minBatchTime {
			// Too little time left to run a batch: never started, so
			// nothing is stored, and the batch is not cut short for it.
			q.done <- result{kind: failed, err: errNoTimeLeft}
			continue
		}
		live = append(live, q)
	}
	if c.s.driver == MySQL {
		// Every writer takes the key locks in one order, so two batches
		// that share keys wait for each other instead of deadlocking.
		slices.SortFunc(live, func(a, b *request) int {
			return cmp.Or(strings.Compare(a.rec.User, b.rec.User), strings.Compare(a.rec.KeyHash, b.rec.KeyHash))
		})
	}
	ctx, cancel := batchContext(live)
	defer cancel()
	for retries := 0; len(live) > 0; {
		out, bad, err := c.s.commitBatch(ctx, live)
		var ce *commitError
		switch {
		case err == nil:
			for i, q := range live {
				q.done <- out[i]
			}
			return
		case bad >= 0 && ctx.Err() == nil:
			live[bad].done <- result{kind: failed, err: err}
			live = append(live[:bad], live[bad+1:]...)
		case isRetryable(err) && retries < maxBatchRetries:
			retries++
		case errors.As(err, &ce):
			for i, q := range live {
				if out[i].kind == conflicted {
					q.done <- out[i]
				} else {
					q.done <- result{kind: unknown, err: ce}
				}
			}
			return
		default:
			for _, q := range live {
				q.done <- result{kind: failed, err: err}
			}
			return
		}
	}
}

// minBatchTime is the least time a request must have left to join a
// batch (see batchContext).
const minBatchTime = time.Second

var errNoTimeLeft = errors.New("too little of the request's time left to store it")

// batchContext ends with the earliest deadline of the batch's callers, so
// that no row commits after the deadline of the request that wrote it:
// the crash sweep takes a file without a row for an orphan once it is
// older than the report timeout and a margin, and must never race a
// commit that is still to come. A caller that cancels (gives up) does not
// cancel its neighbours' commit; only the deadline ends the batch.
func batchContext(live []*request) (context.Context, context.CancelFunc) {
	var earliest time.Time
	for _, q := range live {
		if d, ok := q.ctx.Deadline(); ok && (earliest.IsZero() || d.Before(earliest)) {
			earliest = d
		}
	}
	if earliest.IsZero() {
		return context.WithCancel(context.Background())
	}
	return context.WithDeadline(context.Background(), earliest)
}
