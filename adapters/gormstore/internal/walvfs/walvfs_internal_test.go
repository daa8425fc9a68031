package walvfs

import (
	"fmt"
	"strings"
	"testing"

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
