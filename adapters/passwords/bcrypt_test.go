package passwords

import "testing"

func TestBcrypt(t *testing.T) {
	b, err := New(10)
	if err != nil {
		t.Fatal(err)
	}
	h, err := b.Hash("correct horse battery staple")
	if err != nil {
		t.Fatal(err)
	}
	if b.Compare(h, "correct horse battery staple") != nil || b.Compare(h, "wrong") == nil {
		t.Fatal("Compare disagrees with Hash")
	}
	if b.Compare(b.Dummy(), "") == nil {
		t.Fatal("the dummy hash matched")
	}
	// The PHP manual's password_verify example: a $2y$ hash made by
	// password_hash("rasmuslerdorf", PASSWORD_DEFAULT).
	const php = "$2y$10$.vGA1O9wmRjrwAVXD98HNOgsNpDczlqm3Jq7KnEd1rVAGv3Fykk1a"
	if err := b.Compare(php, "rasmuslerdorf"); err != nil {
		t.Fatalf("PHP $2y$ hash: %v", err)
	}
	if b.Compare(php, "rasmuslerdorF") == nil {
		t.Fatal("PHP hash matched the wrong password")
	}
	// The PHP hash has cost 10: current under cost 10, stale under 12.
	if b.NeedsRehash(php) || b.NeedsRehash(h) || !b.NeedsRehash("not a hash") {
		t.Fatal("NeedsRehash wrong for cost 10")
	}
	if !(&Bcrypt{Cost: 12}).NeedsRehash(php) {
		t.Fatal("a cost-10 hash does not need a rehash under cost 12")
	}
}
