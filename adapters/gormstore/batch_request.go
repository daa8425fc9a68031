package gormstore

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/lender/disbursementd/domain"
)

// request is one StoreReport waiting for its batch.
type request struct {
	ctx   context.Context
	r     domain.StagedReport
	enter time.Time // the store's clock at StoreReport (eventTime)
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
