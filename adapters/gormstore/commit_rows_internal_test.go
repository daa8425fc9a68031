package gormstore

import (
	"context"
	"errors"
	"testing"
)

// TestChunksOfABatch: a batch of up to 64 reports (store.max_batch's
// default) goes in at most two chunks, each a size with a prepared
// statement (or one row), and every batch up to max_batch's bound is cut
// into chunks that add up to it, largest first.
func TestChunksOfABatch(t *testing.T) {
	t.Parallel()
	sizes := map[int]bool{1: true}
	for i, size := range rowChunks {
		sizes[size] = true
		if i > 0 && size >= rowChunks[i-1] {
			t.Fatalf("rowChunks %v: not largest first", rowChunks)
		}
	}
	for n := 1; n <= 1000; n++ {
		var chunks []int
		for left := n; left > 0; {
			c := chunkSize(left)
			if !sizes[c] || c > left {
				t.Fatalf("batch of %d: chunk of %d with %d left", n, c, left)
			}
			chunks = append(chunks, c)
			left -= c
		}
		for i := 1; i < len(chunks); i++ {
			if chunks[i] > chunks[i-1] {
				t.Fatalf("batch of %d: chunks %v, not largest first", n, chunks)
			}
		}
		if n <= 64 && len(chunks) > 2 {
			t.Fatalf("batch of %d: %d chunks %v, want at most 2", n, len(chunks), chunks)
		}
	}
}

// TestReturningServer: INSERT ... RETURNING is MariaDB's from 10.5; MySQL
// has none, whatever its version.
func TestReturningServer(t *testing.T) {
	t.Parallel()
	for version, want := range map[string]bool{
		"10.11.19-MariaDB-0+deb12u1": true,
		"5.5.5-10.11.6-MariaDB":      true, // a handshake's form, as some proxies answer
		"5.5.5-10.4.34-MariaDB":      false,
		"10.5.0-MariaDB":             true,
		"11.4.2-MariaDB-log":         true,
		"10.4.34-MariaDB":            false,
		"10.3.39-MariaDB-0+deb10u1":  false,
		"8.0.36":                     false,
		"8.4.0-commercial":           false,
		"5.7.44-log":                 false,
		"":                           false,
		"MariaDB":                    false,
	} {
		if got := returningServer(version); got != want {
			t.Errorf("returningServer(%q) = %v, want %v", version, got, want)
		}
	}
}

// TestSubmitDoneContext: a caller whose context is already done is
// answered at once and its request never queued, even with room in the
// queue (a select there would queue it about half the time, for a writer
// to take before the caller marks it abandoned).
func TestSubmitDoneContext(t *testing.T) {
	t.Parallel()
	c := &committer{queue: make(chan *request, 64), stop: make(chan struct{}), stopped: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for i := range 40 {
		q := &request{ctx: ctx, done: make(chan result, 1)}
		if res := c.submit(ctx, q); res.kind != failed || !errors.Is(res.err, context.Canceled) {
			t.Fatalf("submit %d with a done context: kind %v, %v; want failed, context.Canceled", i, res.kind, res.err)
		}
		if n := len(c.queue); n != 0 {
			t.Fatalf("submit %d with a done context: %d requests queued, want 0", i, n)
		}
	}
}
