package fsupload

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/sysclock"
	"github.com/lender/disbursementd/test/fixture"
)

func TestCheckFailsBelowMinFreeBytes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// More than any disk has: the state a full disk puts the store in.
	s, err := Open(dir, Options{MinFreeBytes: math.MaxInt64, Clock: sysclock.Clock{}})
	if err != nil {
		t.Fatalf("Open must not refuse a full disk (a state for readiness): %v", err)
	}
	defer s.Close()
	err = s.Check(context.Background())
	if err == nil || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "bytes free") {
		t.Fatalf("Check on a disk below the minimum = %v; want an error naming %s and its free space", err, dir)
	}
	ok, err := Open(dir, Options{MinFreeBytes: 1, Clock: sysclock.Clock{}})
	if err != nil {
		t.Fatal(err)
	}
	defer ok.Close()
	if err := ok.Check(context.Background()); err != nil {
		t.Fatalf("Check with 1 byte required: %v", err)
	}
}

func TestCheckReopensAReplacedDirectory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, dir := mustOpen(t)
	first, err := s.Save(ctx, "CR-1", time.Now(), fixture.File(fixture.PDF(1000)))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Check(ctx); err != nil {
		t.Fatal(err)
	}
	// The operator moves the directory away and makes a new one.
	old := dir + ".old"
	if err := os.Rename(dir, old); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(old) })
	if err := os.Mkdir(dir, 0o750); err != nil {
		t.Fatal(err)
	}
	err = s.Check(ctx)
	if err == nil || !strings.Contains(err.Error(), "replaced") || !strings.Contains(err.Error(), dir) {
		t.Fatalf("Check after replacement = %v; want it to fail once, naming %s", err, dir)
	}
	if err := s.Check(ctx); err != nil {
		t.Fatalf("second Check after reopening: %v", err)
	}
	name, err := s.Save(ctx, "CR-2", time.Now(), fixture.File(fixture.PDF(1000)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
		t.Fatalf("Save after reopening did not land in the new directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(old, name)); err == nil {
		t.Fatal("Save after reopening went to the old directory")
	}
	if _, err := os.Stat(filepath.Join(old, first)); err != nil {
		t.Fatalf("the file saved before is not in the old directory: %v", err)
	}
	if ok, err := s.Exists(ctx, first); ok || err != nil {
		t.Fatalf("Exists(%s) in the new directory = %v, %v", first, ok, err)
	}
}

func TestCheckSaysWhenTheDirectoryIsRemoved(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, dir := mustOpen(t)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	err := s.Check(ctx)
	if err == nil || !strings.Contains(err.Error(), "gone") || !strings.Contains(err.Error(), dir) {
		t.Fatalf("Check on a removed directory = %v", err)
	}
	if _, err := s.Save(ctx, "CR-1", time.Now(), fixture.File(fixture.PDF(1000))); err == nil {
		t.Fatal("Save into a removed directory succeeded")
	}
	if err := s.Check(ctx); err == nil {
		t.Fatal("Check passed while the directory is still gone")
	}
	// Made again: one failing Check reopens it, then all is well.
	if err := os.Mkdir(dir, 0o750); err != nil {
		t.Fatal(err)
	}
	if err := s.Check(ctx); err == nil || !strings.Contains(err.Error(), "replaced") {
		t.Fatalf("Check on the directory made again = %v", err)
	}
	if err := s.Check(ctx); err != nil {
		t.Fatal(err)
	}
	name, err := s.Save(ctx, "CR-1", time.Now(), fixture.File(fixture.PDF(1000)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
}

func TestCheckFailsOnAReadOnlyDirectory(t *testing.T) {
	t.Parallel()
	if os.Geteuid() == 0 {
		t.Skip("running as root: read-only directories are still writable")
	}
	s, dir := mustOpen(t)
	_ = os.Chmod(dir, 0o500)
	defer os.Chmod(dir, 0o700)
	if err := s.Check(context.Background()); err == nil || !strings.Contains(err.Error(), "not writable") {
		t.Fatalf("Check on a read-only directory = %v", err)
	}
}

// TestSaveFollowsAReplacedDirectory: a Save right after the directory was
// replaced, before any readiness probe, goes to the new directory; with
// the directory gone it fails and writes nothing.
func TestSaveFollowsAReplacedDirectory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "uploads")
	if err := os.Mkdir(dir, 0o750); err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir, Options{Clock: sysclock.Clock{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	old := dir + ".old"
	if err := os.Rename(dir, old); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Save(ctx, "CR-1", time.Now(), fixture.File(fixture.PDF(1000))); err == nil || !strings.Contains(err.Error(), "gone") {
		t.Fatalf("Save with the directory gone = %v; want an error naming it", err)
	}
	if entries, _ := os.ReadDir(old); len(entries) != 0 {
		t.Fatalf("a Save with the directory gone wrote into the old one: %v", entries)
	}
	if err := os.Mkdir(dir, 0o750); err != nil {
		t.Fatal(err)
	}
	name, err := s.Save(ctx, "CR-2", time.Now(), fixture.File(fixture.PDF(1000)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
		t.Fatalf("the Save did not land in the new directory: %v", err)
	}
}
