package httpapi

import (
	"fmt"
	"testing"
)

// TestReceivingBounds: the bound per partner and the bound in all each
// refuse on their own, a place given back is taken again, and a partner
// with no body arriving is forgotten, so the map never holds more than
// the bodies being received.
func TestReceivingBounds(t *testing.T) {
	g := newKeyedGate(5, 3)
	for i := range 3 {
		if !g.enter("acme") {
			t.Fatalf("acme's body %d refused under both bounds", i)
		}
	}
	if g.enter("acme") {
		t.Fatal("acme's 4th body taken past the bound per partner (3)")
	}
	for _, p := range []string{"beta", "gamma"} {
		if !g.enter(p) {
			t.Fatalf("%s refused with %d of 5 places taken", p, g.n)
		}
	}
	if g.enter("delta") {
		t.Fatal("a 6th body taken past the bound in all (5)")
	}
	g.leave("beta")
	if !g.enter("delta") {
		t.Fatal("a place given back was not taken again")
	}
	for _, p := range []string{"acme", "acme", "acme", "gamma", "delta"} {
		g.leave(p)
	}
	if g.n != 0 || len(g.by) != 0 {
		t.Fatalf("after every body left: %d counted, %d partners remembered", g.n, len(g.by))
	}
	for i := range 1000 { // many partners in turn: never more entries than bodies
		p := fmt.Sprintf("p%d", i)
		g.enter(p)
		g.leave(p)
	}
	if len(g.by) != 0 {
		t.Fatalf("%d partners remembered with no body arriving", len(g.by))
	}
}
