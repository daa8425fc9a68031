package gormstore

import "testing"

// TestNodeChoice: the rule by which a replica's pools move between the
// nodes of its list, probe round after probe round: they stay while
// their node serves, go to the first serving node of the list when it
// does not (never to one that does not serve), stay when none serves,
// and move back to a node earlier in the list once it has served
// settleProbes rounds in a row. Each move is a new epoch.
func TestNodeChoice(t *testing.T) {
	t.Parallel()
	const Y, N = true, false
	rounds := []struct {
		serving []bool
		want    int
	}{
		{[]bool{Y, Y, Y}, 0},
		{[]bool{N, Y, Y}, 1}, // node 1 gone: the next in the list
		{[]bool{N, N, Y}, 2}, // and the next
		{[]bool{N, N, N}, 2}, // none serves: stay
		{[]bool{N, Y, N}, 1}, // never to one that does not serve
		{[]bool{Y, Y, Y}, 1}, // node 1 back: one round is not enough
		{[]bool{N, Y, Y}, 1},
		{[]bool{Y, Y, Y}, 1},
		{[]bool{Y, Y, Y}, 0}, // two rounds in a row: back to it
	}
	n := &nodeSet{streak: make([]int, 3)}
	n.current.Store(&choice{})
	moves := uint64(0)
	for i, r := range rounds {
		before := n.node()
		n.choose(r.serving)
		got := n.node()
		if got.node != before.node {
			moves++
		}
		if got.node != r.want || got.epoch != moves {
			t.Fatalf("round %d (serving %v): node %d epoch %d, want node %d epoch %d", i, r.serving, got.node, got.epoch, r.want, moves)
		}
	}
	if n.Moves() != int64(moves) || moves != 4 {
		t.Errorf("Moves = %d, counted %d, want 4", n.Moves(), moves)
	}
}
