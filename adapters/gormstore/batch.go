package gormstore

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
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
	// galera is the writers that take batches once the server is found
	// to be a Galera node (0: as many as started); the others end.
	galera  int
	limit   atomic.Int32  // writers that take batches: writer i ends once i >= limit
	probed  atomic.Bool   // the server was asked whether it is a Galera node
	stop    chan struct{} // closed by close: writers take no new batch
	stopped chan struct{} // closed once the writers are gone and the queue drained
	wg      sync.WaitGroup
	once    sync.Once
}

// maxBatchRetries bounds the re-runs of a whole batch that lost a
// deadlock or a certification (1213) before its requests run alone.
const maxBatchRetries = 3

var errClosed = errors.New("store closed")

func newCommitter(s *Store, writers, galera, maxBatch int) *committer {
	c := &committer{s: s, queue: make(chan *request, writers*maxBatch), maxBatch: maxBatch, galera: galera,
		stop: make(chan struct{}), stopped: make(chan struct{})}
	c.limit.Store(int32(writers))
	c.probed.Store(galera <= 0 || galera >= writers)
	c.wg.Add(writers)
	for i := range writers {
		go c.writer(i)
	}
	return c
}

// probe asks the server, before the first batch that reaches it, whether
// it is a Galera node, and then lets only c.galera writers take batches:
// each commit on a node pays a certification round among the nodes, so
// fewer, larger batches carry more reports (docs/scaling.md). A failed
// question is asked again before the next batch.
func (c *committer) probe(ctx context.Context) {
	if c.probed.Load() {
		return
	}
	on, err := c.s.galeraNode(ctx)
	if err != nil {
		return
	}
	if on {
		c.limit.Store(int32(c.galera))
	}
	c.probed.Store(true)
}

// submit queues a request and waits for its result, within ctx. A caller
// that gives up before its batch started leaves nothing behind; one whose
// batch is under way cannot know its outcome.
func (c *committer) submit(ctx context.Context, q *request) result {
	// Not queued: a select would pick a free queue or a done ctx at random,
	// and a writer could take it before the caller marks it abandoned.
	if err := ctx.Err(); err != nil {
		return result{kind: failed, err: err}
	}
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

func (c *committer) writer(i int) {
	defer c.wg.Done()
	for i < int(c.limit.Load()) {
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

// run commits one batch. Requests whose caller has given up are skipped;
// the rest are committed by commit, under a context that lasts while any
// of their callers waits.
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
	c.probe(ctx)
	c.commit(ctx, live)
}

// commit runs live as one transaction until each request has its answer.
// What one request did fails only that request: a row the database
// refuses, or a lock wait that timed out at its statement (both roll the
// transaction back: nothing of it was stored), is answered and the rest
// run again. A deadlock or a certification failure (1213, at a statement
// or at COMMIT: the server rolled it all back) runs the whole batch again,
// a bounded number of times after a jittered pause; then each request
// runs alone, so only one that keeps conflicting fails. Any other failure
// before the commit fails every request (nothing was stored); a COMMIT
// that failed without an answer leaves each outcome to be read back.
func (c *committer) commit(ctx context.Context, live []*request) {
	for retries := 0; len(live) > 0; {
		out, at, err := c.s.commitBatch(ctx, live)
		var ce *commitError
		switch {
		case err == nil:
			for i, q := range live {
				q.done <- out[i]
			}
			return
		case at >= 0 && ctx.Err() == nil && (c.s.rowError(err) || isLockWait(err)):
			live[at].done <- result{kind: failed, err: err}
			live = append(live[:at], live[at+1:]...)
		case isConflict(err) && ctx.Err() == nil:
			if retries < maxBatchRetries && pause(ctx, retries) {
				retries++
				c.s.conflicts.Add(1)
				continue
			}
			if len(live) == 1 {
				live[0].done <- result{kind: failed, err: err}
				return
			}
			c.s.conflicts.Add(1)
			for _, q := range live {
				if err := q.ctx.Err(); err != nil {
					q.done <- result{kind: failed, err: err} // nothing of it was stored
					continue
				}
				c.commit(ctx, []*request{q})
			}
			return
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

// batchContext ends once every caller of the batch has given up (its own
// deadline passed, or it was cancelled): no caller's time cuts short a
// batch that others still wait for. A caller whose time is up while its
// batch runs is answered on its own, its outcome unknown (submit); its row
// may still commit, and then keeps its file: the sweep removes a file only
// through a tombstone that a committed reservation refuses
// (reservations.go), so it does not depend on when a commit lands.
func batchContext(live []*request) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	left := atomic.Int64{}
	left.Store(int64(len(live)))
	stops := make([]func() bool, len(live))
	for i, q := range live {
		stops[i] = context.AfterFunc(q.ctx, func() {
			if left.Add(-1) == 0 {
				cancel()
			}
		})
	}
	return ctx, func() {
		for _, stop := range stops {
			stop()
		}
		cancel()
	}
}
