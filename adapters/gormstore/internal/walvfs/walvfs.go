// Package walvfs is a SQLite VFS that writes a transaction's WAL frames
// to the file in one system call instead of two a page.
//
// SQLite appends each frame of a commit to the -wal file with two writes,
// its 24-byte header and its page, and then syncs the file: a report
// alone in its commit touches about 19 pages, 38 pwrite calls before its
// fdatasync. This VFS is the operating system's (vfs.Find("os")) with the
// -wal file wrapped: writes that continue the previous one are gathered
// in memory and written together when SQLite syncs, reads, sizes,
// truncates or closes the file, or writes somewhere else in it. Every
// other file (the database, its shared memory, temporary files) is the
// operating system VFS's own, untouched.
//
// It is correct only where every commit syncs the WAL before it
// publishes its frames: synchronous FULL or EXTRA, with power-safe
// overwrite (SQLite's default, which this VFS keeps). There SQLite writes
// a commit's frames, syncs the file (this VFS writes the gathered frames
// first), and only then writes the WAL index that lets other connections
// read them; a frame of a transaction not yet committed is read only by
// its own connection, through the same file, which writes what it
// gathered before it reads. What a crash loses is what SQLite itself
// counts as lost: nothing was synced, no commit of it was acknowledged.
// So OpenFilename gathers only when the file's URI asks for synchronous
// FULL or EXTRA and does not turn power-safe overwrite off; otherwise the
// WAL is the operating system VFS's file as it is.
package walvfs

import (
	"net/url"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ncruces/go-sqlite3/vfs"
)

// Name is the VFS's name, for a SQLite URI's vfs parameter.
const Name = "disb-wal"

// maxGather bounds what one -wal file gathers before it writes: a batch
// of a few hundred reports, or a migration's large transaction, is
// written a mebibyte at a time, and no connection holds more than that.
const maxGather = 1 << 20

var once sync.Once

// Register registers the VFS under Name (once; later calls do nothing).
func Register() {
	once.Do(func() {
		vfs.Register(Name, gatherVFS{vfs.Find("os").(vfs.VFSFilename)})
	})
}

// Counts of what the -wal files were asked to write and what reached the
// operating system, for tests and for the curious: Writes / Calls is how
// many writes one call carried.
var (
	writes atomic.Int64
	calls  atomic.Int64
)

// Stats returns how many writes SQLite made to gathering -wal files, and
// how many write calls reached the file system for them, since the
// process started.
func Stats() (writesAsked, writeCalls int64) { return writes.Load(), calls.Load() }

type gatherVFS struct{ vfs.VFSFilename }

func (v gatherVFS) OpenFilename(name *vfs.Filename, flags vfs.OpenFlag) (vfs.File, vfs.OpenFlag, error) {
	f, out, err := v.VFSFilename.OpenFilename(name, flags)
	if err != nil || flags&vfs.OPEN_WAL == 0 || name == nil || !Gathers(name.URIParameters()) {
		return f, out, err
	}
	return &gatherFile{File: f}, out, nil
}

// Gathers says whether a -wal file opened under a SQLite URI with query q
// is gathered: whether its connection syncs the WAL at every commit
// before it publishes the commit's frames, synchronous FULL or EXTRA (the
// last of the driver's _pragma parameters that sets it), and power-safe
// overwrite is not turned off (with it off, SQLite writes the end of a
// commit's last frame after the sync).
func Gathers(q url.Values) bool {
	if v := q.Get("psow"); v != "" {
		switch strings.ToLower(v) {
		case "0", "false", "no", "off":
			return false
		}
	}
	level := ""
	for _, p := range q["_pragma"] {
		p = strings.ToLower(strings.ReplaceAll(p, " ", ""))
		if rest, ok := strings.CutPrefix(p, "synchronous"); ok {
			level = strings.Trim(rest, "()=")
		}
	}
	switch level {
	case "full", "2", "extra", "3":
		return true
	}
	return false
}

// gatherFile is a -wal file whose writes are gathered while each one
// continues the last. SQLite calls a file's methods from one connection
// at a time, so it needs no lock of its own.
type gatherFile struct {
	vfs.File
	buf []byte
	off int64 // where buf's first byte goes in the file
}

// flush writes what was gathered, and forgets it whether or not the
// write succeeded: SQLite learns of a failure from the call that asked
// for the flush, and what follows a failed commit is a rollback.
func (f *gatherFile) flush() error {
	if len(f.buf) == 0 {
		return nil
	}
	calls.Add(1)
	_, err := f.File.WriteAt(f.buf, f.off)
	f.buf = f.buf[:0]
	return err
}

func (f *gatherFile) WriteAt(p []byte, off int64) (int, error) {
	writes.Add(1)
	if len(f.buf) > 0 && (off != f.off+int64(len(f.buf)) || len(f.buf)+len(p) > maxGather) {
		if err := f.flush(); err != nil {
			return 0, err
		}
	}
	if len(p) >= maxGather {
		calls.Add(1)
		return f.File.WriteAt(p, off)
	}
	if len(f.buf) == 0 {
		f.off = off
	}
	f.buf = append(f.buf, p...)
	return len(p), nil
}

func (f *gatherFile) ReadAt(p []byte, off int64) (int, error) {
	if err := f.flush(); err != nil {
		return 0, err
	}
	return f.File.ReadAt(p, off)
}

func (f *gatherFile) Sync(flags vfs.SyncFlag) error {
	if err := f.flush(); err != nil {
		return err
	}
	return f.File.Sync(flags)
}

func (f *gatherFile) Size() (int64, error) {
	if err := f.flush(); err != nil {
		return 0, err
	}
	return f.File.Size()
}

func (f *gatherFile) Truncate(size int64) error {
	if err := f.flush(); err != nil {
		return err
	}
	return f.File.Truncate(size)
}

func (f *gatherFile) Close() error {
	err := f.flush()
	if cerr := f.File.Close(); err == nil {
		err = cerr
	}
	return err
}
