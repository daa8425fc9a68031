package gormstore

import "testing"

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
