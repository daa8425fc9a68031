package storetest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
	"github.com/lender/disbursementd/test/fixture"
)

// UploadHarness is an upload store under test with a way around it, to
// look at and prepare what it keeps.
type UploadHarness struct {
	Store     ports.UploadStore
	Inventory ports.UploadInventory
	// Read returns the bytes stored under a published name.
	Read func(name string) ([]byte, error)
	// Put stores data under name directly, as another writer would.
	Put func(name string, data []byte) error
	// Leftover leaves what a Save that never finished leaves and returns
	// its name; nil where a failed Save leaves nothing (S3: a PUT is all
	// or nothing).
	Leftover func() (string, error)
}

// RunUploadStore is the one upload-store suite every adapter runs: each
// of uploadTests on a store of its own, in parallel.
func RunUploadStore(t *testing.T, open func(testing.TB) UploadHarness) {
	runEach(t, open, uploadTests)
}

// uploadTests are the upload-store suite, by name: saving, reading,
// walking and removing here, the quarantine in uploads_quarantine.go.
var uploadTests = []namedTest[UploadHarness]{
	{"round trip", testUploadRoundTrip},
	{"a file at the size limit round trip", testUploadAtSizeLimit},
	{"never overwrites: a taken name moves the timestamp on", testUploadNeverOverwrites},
	{"concurrent saves of one credit and time get distinct names", testUploadConcurrentNames},
	{"bad credit numbers are refused before storage is touched", testUploadBadCredit},
	{"a cancelled save stores nothing", testUploadCancelled},
	{"remove; a missing file is no error", testUploadRemove},
	{"walk lists files with their times, and leftovers", testUploadWalk},
	{"exists", testUploadExists},
	{"check", testUploadCheck},
	{"quarantine: moved aside, not walked, not served, and back", testQuarantineAndBack},
	{"quarantine: names that are not upload names are refused", testQuarantineRefusesNames},
}

// uploadAt is the time the upload suite saves its files at.
var uploadAt = time.Date(2026, 11, 26, 10, 20, 30, 123e6, time.UTC)

// testUploadRoundTrip: a PDF and a PNG read back as saved, under the names their credit number and time give.
func testUploadRoundTrip(t *testing.T, h UploadHarness) {
	ctx := context.Background()
	at := uploadAt
	for _, c := range []struct {
		data []byte
		ext  string
	}{{fixture.PDF(64 << 10), "pdf"}, {fixture.PNG, "png"}} {
		name, err := h.Store.Save(ctx, "CR-RT-1", at, fixture.File(c.data))
		if err != nil {
			t.Fatal(err)
		}
		if want := domain.FileName("CR-RT-1", at, c.ext); name != want {
			t.Fatalf("Save named the file %s, want %s", name, want)
		}
		mustHold(t, h, name, c.data)
		if ok, err := h.Store.Exists(ctx, name); !ok || err != nil {
			t.Fatalf("Exists(%s) = %v, %v", name, ok, err)
		}
		at = at.Add(time.Second)
	}
}

// testUploadAtSizeLimit: a file at the size limit round trip.
func testUploadAtSizeLimit(t *testing.T, h UploadHarness) {
	ctx := context.Background()
	at := uploadAt
	data, file := LimitFile()
	name, err := h.Store.Save(ctx, "CR-BIG-1", at, file)
	if err != nil {
		t.Fatal(err)
	}
	mustHold(t, h, name, data)
}

// testUploadNeverOverwrites: never overwrites: a taken name moves the timestamp on.
func testUploadNeverOverwrites(t *testing.T, h UploadHarness) {
	ctx := context.Background()
	at := uploadAt
	taken := domain.FileName("CR-OW-1", at, "pdf")
	if err := h.Put(taken, []byte("keep me")); err != nil {
		t.Fatal(err)
	}
	data := fixture.PDF(2000)
	name, err := h.Store.Save(ctx, "CR-OW-1", at, fixture.File(data))
	if err != nil {
		t.Fatal(err)
	}
	if want := domain.FileName("CR-OW-1", at.Add(time.Millisecond), "pdf"); name != want {
		t.Fatalf("Save over a taken name used %s, want %s", name, want)
	}
	mustHold(t, h, taken, []byte("keep me"))
	mustHold(t, h, name, data)
}

// testUploadConcurrentNames: concurrent saves of one credit and time get distinct names.
func testUploadConcurrentNames(t *testing.T, h UploadHarness) {
	ctx := context.Background()
	at := uploadAt
	const n = 10
	names := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name, err := h.Store.Save(ctx, "CR-CC-1", at, fixture.File(fixture.PDF(1000+i)))
			if err != nil {
				t.Error(err)
			}
			names[i] = name
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for i, name := range names {
		if seen[name] {
			t.Fatalf("name %s given twice: %v", name, names)
		}
		seen[name] = true
		mustHold(t, h, name, fixture.PDF(1000+i))
	}
}

// testUploadBadCredit: bad credit numbers are refused before storage is touched.
func testUploadBadCredit(t *testing.T, h UploadHarness) {
	ctx := context.Background()
	at := uploadAt
	for _, credit := range []string{"../x", "a/b", "", "a\x00b", strings.Repeat("9", 31), "CR.1", "CR 1", "ñ"} {
		if name, err := h.Store.Save(ctx, credit, at, fixture.File(fixture.PDF(100))); err == nil {
			t.Errorf("Save accepted credit number %q as %s", credit, name)
		}
	}
	if got := walk(t, h); len(got) != 0 {
		t.Fatalf("storage touched: %v", got)
	}
}

// testUploadCancelled: a cancelled save stores nothing.
func testUploadCancelled(t *testing.T, h UploadHarness) {
	ctx := context.Background()
	at := uploadAt
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if name, err := h.Store.Save(cctx, "CR-CX-1", at, fixture.File(fixture.PDF(100))); err == nil {
		t.Fatalf("Save with a cancelled context stored %s", name)
	}
	for _, o := range walk(t, h) {
		if !o.Temp {
			t.Fatalf("a cancelled Save published %s", o.Name)
		}
	}
}

// testUploadRemove: remove; a missing file is no error.
func testUploadRemove(t *testing.T, h UploadHarness) {
	ctx := context.Background()
	at := uploadAt
	name, err := h.Store.Save(ctx, "CR-RM-1", at, fixture.File(fixture.PDF(100)))
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := h.Store.Remove(ctx, name); err != nil {
			t.Fatal(err)
		}
		if ok, err := h.Store.Exists(ctx, name); ok || err != nil {
			t.Fatalf("Exists after Remove = %v, %v", ok, err)
		}
	}
	if err := h.Store.Remove(ctx, domain.FileName("CR-NEVER", at, "pdf")); err != nil {
		t.Fatalf("Remove of a file never saved: %v", err)
	}
}

// testUploadWalk: walk lists files with their times, and leftovers.
func testUploadWalk(t *testing.T, h UploadHarness) {
	ctx := context.Background()
	at := uploadAt
	before := time.Now()
	var want []string
	for i := range 3 {
		name, err := h.Store.Save(ctx, fmt.Sprintf("CR-WK-%d", i), at, fixture.File(fixture.PDF(100+i)))
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, name)
	}
	after := time.Now()
	if err := h.Put("notes.txt", []byte("not the store's")); err != nil {
		t.Fatal(err)
	}
	var leftover string
	if h.Leftover != nil {
		var err error
		if leftover, err = h.Leftover(); err != nil {
			t.Fatal(err)
		}
	}
	var files []string
	var temps []ports.StoredObject
	for _, o := range walk(t, h) {
		if o.Temp {
			temps = append(temps, o)
			continue
		}
		files = append(files, o.Name)
		// Object stores keep times to the second.
		if o.ModTime.Before(before.Add(-2*time.Second)) || o.ModTime.After(after.Add(2*time.Second)) {
			t.Errorf("%s dated %v, saved between %v and %v", o.Name, o.ModTime, before, after)
		}
	}
	sort.Strings(files)
	sort.Strings(want)
	if fmt.Sprint(files) != fmt.Sprint(want) {
		t.Fatalf("Walk listed %v, want %v (and not notes.txt)", files, want)
	}
	if err := h.Inventory.RemoveLeftover(ctx, ports.StoredObject{Name: want[0]}); err == nil {
		t.Fatal("RemoveLeftover removed a published file")
	}
	mustHold(t, h, want[0], fixture.PDF(100))
	if h.Leftover == nil {
		if len(temps) != 0 {
			t.Fatalf("leftovers reported where none can be: %v", temps)
		}
		return
	}
	if len(temps) != 1 || temps[0].Name != leftover {
		t.Fatalf("Walk reported leftovers %v, want %s", temps, leftover)
	}
	if err := h.Inventory.RemoveLeftover(ctx, temps[0]); err != nil {
		t.Fatal(err)
	}
	for _, o := range walk(t, h) {
		if o.Temp {
			t.Fatalf("leftover %s still there after RemoveLeftover", o.Name)
		}
	}
}

// testUploadExists: Exists of a name never saved is false, without an error.
func testUploadExists(t *testing.T, h UploadHarness) {
	ctx := context.Background()
	at := uploadAt
	if ok, err := h.Store.Exists(ctx, domain.FileName("CR-NONE", at, "pdf")); ok || err != nil {
		t.Fatalf("Exists of nothing = %v, %v", ok, err)
	}
}

// testUploadCheck: Check of a usable store passes.
func testUploadCheck(t *testing.T, h UploadHarness) {
	ctx := context.Background()
	if err := h.Store.Check(ctx); err != nil {
		t.Fatal(err)
	}
}

// LimitFile returns a PDF just under the default size limit (20 MiB) and
// the checked file made of it, built once per test binary: making it
// takes seconds under the race detector, and a domain.File is read-only.
func LimitFile() ([]byte, *domain.File) {
	limitOnce.Do(func() {
		limitData = fixture.PDF(int(fixture.FileRules().MaxBytes()) - 100)
		limitFile = fixture.File(limitData)
	})
	return limitData, limitFile
}

var (
	limitOnce sync.Once
	limitData []byte
	limitFile *domain.File
)

// mustHold fails unless name holds data.
func mustHold(t *testing.T, h UploadHarness, name string, data []byte) {
	t.Helper()
	got, err := h.Read(name)
	if err != nil {
		t.Fatalf("read %s: %v", name, err)
	}
	if !bytes.Equal(got, data) {
		t.Fatalf("%s holds %d bytes (sha256 %x), want %d (sha256 %x)", name, len(got), sha256.Sum256(got), len(data), sha256.Sum256(data))
	}
}

func walk(t *testing.T, h UploadHarness) []ports.StoredObject {
	t.Helper()
	var all []ports.StoredObject
	if err := h.Inventory.Walk(context.Background(), func(o ports.StoredObject) error {
		all = append(all, o)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return all
}
