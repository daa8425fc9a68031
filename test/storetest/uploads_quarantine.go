package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
	"github.com/lender/disbursementd/test/fixture"
)

// An upload store's quarantine: a file moved there keeps its content, is
// no longer walked or served, is dated by the move, comes back only where
// no file is published, and names that are not upload names are refused.

// testQuarantineAndBack: quarantine: moved aside, not walked, not served, and back.
func testQuarantineAndBack(t *testing.T, h UploadHarness) {
	ctx := context.Background()
	at := uploadAt
	data := fixture.PDF(3000)
	name, err := h.Store.Save(ctx, "CR-QU-1", at, fixture.File(data))
	if err != nil {
		t.Fatal(err)
	}
	other, err := h.Store.Save(ctx, "CR-QU-2", at, fixture.File(fixture.PDF(100)))
	if err != nil {
		t.Fatal(err)
	}
	before := time.Now()
	if err := h.Inventory.Quarantine(ctx, name); err != nil {
		t.Fatal(err)
	}
	if ok, err := h.Store.Exists(ctx, name); ok || err != nil {
		t.Fatalf("Exists of a quarantined file = %v, %v", ok, err)
	}
	for _, o := range walk(t, h) {
		if o.Name == name {
			t.Fatal("Walk lists a quarantined file")
		}
	}
	q := walkQuarantine(t, h)
	if len(q) != 1 || q[0].Name != name {
		t.Fatalf("WalkQuarantine = %+v, want %s", q, name)
	}
	if q[0].ModTime.Before(before.Add(-2 * time.Second)) {
		t.Fatalf("quarantined at %v, moved after %v: the date must be the move's", q[0].ModTime, before)
	}
	// Again (a run that stopped after the copy): no error, one file.
	if err := h.Inventory.Quarantine(ctx, name); !domain.IsKind(err, domain.ErrNotFound) {
		t.Fatalf("Quarantine of a file no longer published = %v, want not found", err)
	}
	if err := h.Put(name, []byte("a new file under that name")); err != nil {
		t.Fatal(err)
	}
	if err := h.Inventory.Unquarantine(ctx, name); !domain.IsKind(err, domain.ErrConflict) {
		t.Fatalf("Unquarantine over a published file = %v, want a conflict", err)
	}
	mustHold(t, h, name, []byte("a new file under that name"))
	if err := h.Inventory.Quarantine(ctx, name); err == nil {
		t.Fatal("Quarantine replaced another file in quarantine")
	}
	if err := h.Store.Remove(ctx, name); err != nil {
		t.Fatal(err)
	}
	if err := h.Inventory.Unquarantine(ctx, name); err != nil {
		t.Fatal(err)
	}
	mustHold(t, h, name, data)
	if q := walkQuarantine(t, h); len(q) != 0 {
		t.Fatalf("still in quarantine after Unquarantine: %+v", q)
	}
	if err := h.Inventory.Unquarantine(ctx, name); !domain.IsKind(err, domain.ErrNotFound) {
		t.Fatalf("Unquarantine of a file not in quarantine = %v, want not found", err)
	}
	// The same file put back by other means (an upload backup): in
	// place, and the quarantined copy goes.
	if err := h.Inventory.Quarantine(ctx, name); err != nil {
		t.Fatal(err)
	}
	if err := h.Put(name, data); err != nil {
		t.Fatal(err)
	}
	if err := h.Inventory.Unquarantine(ctx, name); err != nil {
		t.Fatalf("Unquarantine where the same file is in place: %v", err)
	}
	mustHold(t, h, name, data)
	if q := walkQuarantine(t, h); len(q) != 0 {
		t.Fatalf("the quarantined copy of a file in place stays: %+v", q)
	}
	if err := h.Inventory.Quarantine(ctx, other); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := h.Inventory.RemoveQuarantined(ctx, other); err != nil {
			t.Fatal(err)
		}
	}
	if q := walkQuarantine(t, h); len(q) != 0 {
		t.Fatalf("RemoveQuarantined left %+v", q)
	}
}

// testQuarantineRefusesNames: quarantine: names that are not upload names are refused.
func testQuarantineRefusesNames(t *testing.T, h UploadHarness) {
	ctx := context.Background()
	at := uploadAt
	if err := h.Put("notes.txt", []byte("not the store's")); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"notes.txt", "../" + domain.FileName("CR-1", at, "pdf"), "partner_x", domain.FileName("CR-1", at, "pdf") + "/x", ""} {
		for op, f := range map[string]func(context.Context, string) error{
			"Quarantine": h.Inventory.Quarantine, "Unquarantine": h.Inventory.Unquarantine, "RemoveQuarantined": h.Inventory.RemoveQuarantined,
		} {
			if err := f(ctx, bad); !domain.IsKind(err, domain.ErrInvalidInput) {
				t.Errorf("%s(%q) = %v, want invalid input", op, bad, err)
			}
		}
	}
	mustHold(t, h, "notes.txt", []byte("not the store's"))
}

func walkQuarantine(t *testing.T, h UploadHarness) []ports.StoredObject {
	t.Helper()
	var all []ports.StoredObject
	if err := h.Inventory.WalkQuarantine(context.Background(), func(o ports.StoredObject) error {
		all = append(all, o)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return all
}
