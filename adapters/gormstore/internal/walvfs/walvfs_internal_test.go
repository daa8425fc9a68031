package walvfs

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/vfs"
)

// callLog is a vfs.File that records the calls that reach it.
type callLog struct {
	vfs.File // nil: the methods the wrapper forwards untouched are not called here
	calls    []string
}

func (c *callLog) WriteAt(p []byte, off int64) (int, error) {
	c.calls = append(c.calls, fmt.Sprintf("write %d@%d", len(p), off))
	return len(p), nil
}
func (c *callLog) ReadAt(p []byte, off int64) (int, error) {
	c.calls = append(c.calls, fmt.Sprintf("read %d@%d", len(p), off))
	return len(p), nil
}
func (c *callLog) Sync(vfs.SyncFlag) error { c.calls = append(c.calls, "sync"); return nil }
func (c *callLog) Size() (int64, error)    { c.calls = append(c.calls, "size"); return 0, nil }
func (c *callLog) Truncate(int64) error    { c.calls = append(c.calls, "truncate"); return nil }
func (c *callLog) Close() error            { c.calls = append(c.calls, "close"); return nil }

// TestWhatReachesTheFileAndWhen: the order of the calls the operating
// system's file sees, for each way a gathered file is used.
func TestWhatReachesTheFileAndWhen(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		do   func(f *gatherFile)
		want string
	}{
		{"a commit: frames, then the sync", func(f *gatherFile) {
			f.WriteAt(make([]byte, 24), 32)
			f.WriteAt(make([]byte, 4096), 56)
			f.WriteAt(make([]byte, 24), 4152)
			f.WriteAt(make([]byte, 4096), 4176)
			f.Sync(vfs.SYNC_FULL)
		}, "write 8240@32; sync"},
		{"a read writes what is gathered first", func(f *gatherFile) {
			f.WriteAt(make([]byte, 24), 32)
			f.WriteAt(make([]byte, 4096), 56)
			f.ReadAt(make([]byte, 4096), 56)
		}, "write 4120@32; read 4096@56"},
		{"a write elsewhere writes what is gathered first", func(f *gatherFile) {
			f.WriteAt(make([]byte, 24), 32)
			f.WriteAt(make([]byte, 24), 8)
			f.Sync(vfs.SYNC_NORMAL)
		}, "write 24@32; write 24@8; sync"},
		{"size and truncate write it first", func(f *gatherFile) {
			f.WriteAt(make([]byte, 32), 0)
			f.Size()
			f.WriteAt(make([]byte, 32), 0)
			f.Truncate(0)
		}, "write 32@0; size; write 32@0; truncate"},
		{"a rollback's drop writes nothing", func(f *gatherFile) {
			f.WriteAt(make([]byte, 24), 32)
			f.drop()
			f.Sync(vfs.SYNC_NORMAL)
		}, "sync"},
		{"close writes nothing", func(f *gatherFile) {
			f.WriteAt(make([]byte, 24), 32)
			f.Close()
		}, "close"},
		{"a mebibyte is written as it fills", func(f *gatherFile) {
			for i := range 300 {
				f.WriteAt(make([]byte, 4096), 32+int64(i)*4096)
			}
		}, "write 1048576@32"},
		{"a write of a mebibyte or more is not copied", func(f *gatherFile) {
			f.WriteAt(make([]byte, 24), 32)
			f.WriteAt(make([]byte, maxGather), 56)
		}, "write 24@32; write 1048576@56"},
	} {
		log := &callLog{}
		c.do(&gatherFile{File: log})
		if got := strings.Join(log.calls, "; "); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}

// sqliteCode is the code a vfs.SystemError carries to SQLite (its
// unexported field code, as the driver reads it).
func sqliteCode(err error) (uint64, bool) {
	if err == nil {
		return 0, false
	}
	v := reflect.ValueOf(err)
	if v.Kind() != reflect.Struct {
		return 0, false
	}
	f := v.FieldByName("code")
	if !f.IsValid() {
		return 0, false
	}
	return f.Uint(), true
}

// failWrites is a callLog whose writes fail, as on a full disk.
type failWrites struct{ callLog }

func (f *failWrites) WriteAt([]byte, int64) (int, error) {
	return 0, errors.New("no space left on device")
}

// TestAFailedWriteFailsTheCallThatAskedForIt: gathered bytes that cannot
// be written fail the sync (so the commit is not acknowledged) and the
// read, as SQLite's IOERR_WRITE, and are not kept for another try.
func TestAFailedWriteFailsTheCallThatAskedForIt(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		call func(f *gatherFile) error
	}{
		{"sync", func(f *gatherFile) error { return f.Sync(vfs.SYNC_FULL) }},
		{"read", func(f *gatherFile) error { _, err := f.ReadAt(make([]byte, 24), 32); return err }},
		{"size", func(f *gatherFile) error { _, err := f.Size(); return err }},
		{"truncate", func(f *gatherFile) error { return f.Truncate(0) }},
		{"write elsewhere", func(f *gatherFile) error { _, err := f.WriteAt(make([]byte, 24), 8); return err }},
	} {
		log := &failWrites{}
		f := &gatherFile{File: log}
		if _, err := f.WriteAt(make([]byte, 24), 32); err != nil {
			t.Fatal(err)
		}
		err := c.call(f)
		if code, ok := sqliteCode(err); !ok || code != uint64(sqlite3.IOERR_WRITE) {
			t.Errorf("%s after a failed write: %v (SQLite code %d, %v), want IOERR_WRITE", c.name, err, code, ok)
		}
		if len(f.buf) != 0 {
			t.Errorf("%s: %d bytes kept after the failed write", c.name, len(f.buf))
		}
		if strings.Contains(strings.Join(log.calls, ";"), "sync") {
			t.Errorf("%s: the file was synced after a failed write: %v", c.name, log.calls)
		}
	}
}

// TestAFailedWriteAtCloseFailsEveryLaterCall: what Closing could not
// write fails every later call on the file, so a transaction whose
// close was refused cannot commit without its frames.
func TestAFailedWriteAtCloseFailsEveryLaterCall(t *testing.T) {
	t.Parallel()
	log := &failWrites{}
	f := &gatherFile{File: log}
	if _, err := f.WriteAt(make([]byte, 24), 32); err != nil {
		t.Fatal(err)
	}
	f.closing()
	if f.broken == nil {
		t.Fatal("the write did not fail")
	}
	if err := f.Sync(vfs.SYNC_FULL); err == nil {
		t.Error("sync after a failed write at close: no error")
	}
	if _, err := f.WriteAt(make([]byte, 24), 56); err == nil {
		t.Error("write after a failed write at close: no error")
	}
	if _, err := f.ReadAt(make([]byte, 24), 32); err == nil {
		t.Error("read after a failed write at close: no error")
	}
	if strings.Contains(strings.Join(log.calls, ";"), "sync") {
		t.Errorf("the file was synced: %v", log.calls)
	}
}
