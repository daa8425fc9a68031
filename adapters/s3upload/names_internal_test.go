package s3upload

import (
	"fmt"
	"testing"
)

// TestNameBookIsBounded: names in use stay distinct, a failed write frees
// its name, and the names remembered after writes are bounded.
func TestNameBookIsBounded(t *testing.T) {
	b := newNameBook()
	if !b.reserve("a") || b.reserve("a") {
		t.Fatal("a name was reserved twice")
	}
	b.release("a", false)
	if !b.reserve("a") {
		t.Fatal("a name whose write failed stays taken")
	}
	b.release("a", true)
	if b.reserve("a") {
		t.Fatal("a written name was reserved again")
	}
	for i := range maxRecent + 100 {
		n := fmt.Sprint("n", i)
		if !b.reserve(n) {
			t.Fatalf("%s refused", n)
		}
		b.release(n, true)
	}
	if len(b.inUse) != maxRecent || len(b.recent) != maxRecent {
		t.Fatalf("%d names in use, %d remembered; want both %d", len(b.inUse), len(b.recent), maxRecent)
	}
	if !b.reserve("a") {
		t.Fatal("the oldest name was not forgotten")
	}
}
