package gormstore

import (
	"context"
	"testing"
	"time"
)

// TestBatchEndsWithItsEarliestDeadline: a batch's transaction may not
// outlast the deadline of any request in it (the crash sweep relies on no
// row committing after its request's deadline), and one caller cancelling
// does not cancel the batch.
func TestBatchEndsWithItsEarliestDeadline(t *testing.T) {
	now := time.Now()
	soon, cancelSoon := context.WithDeadline(context.Background(), now.Add(5*time.Second))
	defer cancelSoon()
	late, cancelLate := context.WithDeadline(context.Background(), now.Add(time.Minute))
	defer cancelLate()
	gone, cancelGone := context.WithCancel(context.Background())
	cancelGone()

	ctx, cancel := batchContext([]*request{{ctx: late}, {ctx: soon}, {ctx: gone}})
	defer cancel()
	d, ok := ctx.Deadline()
	if want, _ := soon.Deadline(); !ok || !d.Equal(want) {
		t.Fatalf("batch deadline %v (%v); want the earliest, %v", d, ok, want)
	}
	if ctx.Err() != nil {
		t.Fatalf("a cancelled caller ended the batch: %v", ctx.Err())
	}

	ctx, cancel = batchContext([]*request{{ctx: context.Background()}})
	defer cancel()
	if _, ok := ctx.Deadline(); ok {
		t.Fatal("a batch without deadlines got one")
	}
}
