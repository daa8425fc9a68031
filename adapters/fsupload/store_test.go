package fsupload

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/sysclock"
	"github.com/lender/disbursementd/test/fixture"
)

func mustOpen(t *testing.T) (*Store, string) {
	t.Helper()
	dir := t.TempDir()
	s, err := Open(dir, Options{Clock: sysclock.Clock{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, dir
}

func TestSaveNeverOverwrites(t *testing.T) {
	t.Parallel()
	s, dir := mustOpen(t)
	at := time.Date(2026, 11, 26, 10, 20, 30, 123e6, time.UTC)
	// Someone else's file already holds the first name.
	first := filepath.Join(dir, "partner_CR-1_20261126T102030123Z.pdf")
	if err := os.WriteFile(first, []byte("keep me"), 0o640); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	names := make([]string, 10)
	for i := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, err := s.Save(context.Background(), "CR-1", at, fixture.File(fixture.PDF(1000+i)))
			if err != nil {
				t.Error(err)
			}
			names[i] = n
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for i, n := range names {
		if seen[n] || n == filepath.Base(first) {
			t.Fatalf("name %s given twice or over the existing file", n)
		}
		seen[n] = true
		got, _ := os.ReadFile(filepath.Join(dir, n))
		if !bytes.Equal(got, fixture.PDF(1000+i)) {
			t.Errorf("%s does not hold what was saved (%d bytes)", n, len(got))
		}
		st, _ := os.Stat(filepath.Join(dir, n))
		if st.Mode().Perm() != 0o640 {
			t.Errorf("%s mode %v", n, st.Mode().Perm())
		}
	}
	if got, _ := os.ReadFile(first); string(got) != "keep me" {
		t.Fatal("existing file overwritten")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".tmp-") {
			t.Errorf("temp file left behind: %s", e.Name())
		}
	}
}

func TestSaveRefusesBadNames(t *testing.T) {
	t.Parallel()
	s, dir := mustOpen(t)
	for _, credit := range []string{"../x", "a/b", "", "a\x00b", strings.Repeat("9", 31), "CR.1"} {
		if _, err := s.Save(context.Background(), credit, time.Now(), fixture.File(fixture.PDF(100))); err == nil {
			t.Errorf("Save accepted credit number %q", credit)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("files were touched: %v", entries)
	}
}

func TestOpenAndCheckSayWhatIsWrong(t *testing.T) {
	t.Parallel()
	if _, err := Open(filepath.Join(t.TempDir(), "missing"), Options{Clock: sysclock.Clock{}}); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("missing dir: %v", err)
	}
	if os.Geteuid() == 0 {
		t.Log("running as root: read-only directories are still writable, skipping that case")
		return
	}
	dir := t.TempDir()
	_ = os.Chmod(dir, 0o500)
	defer os.Chmod(dir, 0o700)
	if _, err := Open(dir, Options{Clock: sysclock.Clock{}}); err == nil || !strings.Contains(err.Error(), "not writable") {
		t.Fatalf("read-only dir: %v", err)
	}
}
