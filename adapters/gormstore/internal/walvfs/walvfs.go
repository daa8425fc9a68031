// Package walvfs is a SQLite VFS that writes a transaction's WAL frames
// to the file in one system call instead of two a page.
//
// SQLite appends each frame of a commit to the -wal file with two writes,
// its 24-byte header and its page, and then syncs the file: a report
// alone in its commit touches about 19 pages, 38 pwrite calls before its
// fdatasync. This VFS is the operating system's (vfs.Find("os")) with the
// -wal file wrapped: writes that continue the previous one are gathered
// in memory and written together when SQLite syncs, reads, sizes or
// truncates the file, or writes somewhere else in it. Every other file
// (the database, its shared memory, temporary files) is the operating
// system VFS's own, untouched.
//
// What is gathered belongs to the connection's open write transaction,
// under its WAL write lock, and nothing else may ever be written:
//
//   - A commit: SQLite writes its frames, syncs the WAL (this VFS writes
//     the gathered frames first), and only then writes the WAL index that
//     lets other connections read them. That needs a sync at every
//     commit: synchronous FULL or EXTRA, with power-safe overwrite
//     (SQLite's default, which this VFS keeps); a file whose URI does not
//     say so is not gathered (Gathers).
//   - Frames a transaction spilled before its commit are read back by
//     their own connection through the same file, which writes what it
//     gathered before it reads.
//   - A rollback makes no call on the WAL file, and releases the write
//     lock: another connection may then commit frames where the
//     rolled-back ones would have gone. So what is gathered is dropped at
//     every rollback, by the rollback hook Attach installs on the
//     connection, and a file is gathered only when its URI also carries
//     GatherParam, which the caller adds only to connections it Attaches.
//     A connection closed inside a transaction is covered by Closing, the
//     driver's close callback, which writes what is gathered while the
//     write lock is still held; Close drops what is left rather than
//     write it.
//
// What a crash loses is what SQLite itself counts as lost: nothing was
// synced, no commit of it was acknowledged. Lowering synchronous on a
// gathering connection after it opened (PRAGMA synchronous) is not
// supported: at NORMAL a commit's frames are published unwritten, and
// other connections read, and checkpoint, what the file held before. The
// service never does: gormstore refuses a connection that does not run
// FULL or EXTRA when it opens, and its TestNothingLowersSynchronous fails
// on any string in its code or migrations that names the pragma but the
// DSN's, that check's and Gathers'.
package walvfs

import (
	"sync"
	"sync/atomic"

	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/vfs"
)

// Name is the VFS's name, for a SQLite URI's vfs parameter.
const Name = "disb-wal"

// GatherParam is the URI parameter (GatherParam=1) that asks for a
// connection's -wal file to be gathered; add it only to connections that
// Attach installs its rollback hook on.
const GatherParam = "disb_wal_gather"

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

// Counts are what gathering -wal files were asked and did since the
// process started, for tests and for the curious.
type Counts struct {
	Asked     int64 // writes SQLite made to them
	Calls     int64 // write calls that reached the file system for them
	Rollbacks int64 // rollbacks seen by Attach's hook
	Closings  int64 // connections closed through Closing
	Drops     int64 // rollbacks and closes that dropped gathered bytes
}

var writes, calls, rollbacks, closings, drops atomic.Int64

// Stats returns the Counts so far.
func Stats() Counts {
	return Counts{Asked: writes.Load(), Calls: calls.Load(), Rollbacks: rollbacks.Load(), Closings: closings.Load(), Drops: drops.Load()}
}

// Attach installs, on a connection whose URI carries GatherParam, the
// rollback hook that drops what its -wal file gathered for the
// transaction being rolled back. It replaces any rollback hook the
// connection had (the service sets none). Pass Closing to the driver as
// the connection's close callback too.
func Attach(c *sqlite3.Conn) {
	c.RollbackHook(func() {
		rollbacks.Add(1)
		if g := gathering(c); g != nil {
			g.drop()
		}
	})
}

// Closing writes what c's -wal file gathered, as c starts to close: the
// driver's close callback (driver.Open's second function, SQLite's
// TRACE_CLOSE), which runs while the connection is still open and, if it
// gathered anything, still holds the WAL write lock, so the frames land
// where the operating system VFS would already have put them. A
// connection closed inside a write transaction then rolls it back, when
// its rollback hook can no longer reach the file, and checkpoints if it
// is the last one, which syncs the WAL: had the frames stayed gathered,
// that sync would write them over what another connection committed in
// between. Written now, they are frames past the WAL's committed end,
// which SQLite ignores; and if the close fails (SQLITE_BUSY, a statement
// still open) and the transaction goes on to commit, they are there. A
// failed write here leaves the file failing every later call.
// (database/sql ends every transaction before it closes a connection;
// this covers misuse and panics.)
func Closing(c *sqlite3.Conn) error {
	closings.Add(1)
	if g := gathering(c); g != nil {
		g.closing()
	}
	return nil
}

// gathering returns c's -wal file if it is gathered (nil if c has none
// open, or SQLite refuses the file control, as it does once c closes).
func gathering(c *sqlite3.Conn) *gatherFile {
	f, err := c.FileControl("main", sqlite3.FCNTL_JOURNAL_POINTER)
	if err != nil {
		return nil
	}
	g, _ := f.(*gatherFile)
	return g
}

type gatherVFS struct{ vfs.VFSFilename }

func (v gatherVFS) OpenFilename(name *vfs.Filename, flags vfs.OpenFlag) (vfs.File, vfs.OpenFlag, error) {
	f, out, err := v.VFSFilename.OpenFilename(name, flags)
	if err != nil || flags&vfs.OPEN_WAL == 0 || name == nil || !Gathers(name.URIParameters()) || !name.URIBoolean(GatherParam, false) {
		return f, out, err
	}
	return &gatherFile{File: f}, out, nil
}

// gatherFile is a -wal file whose writes are gathered while each one
// continues the last. SQLite calls a file's methods from one connection
// at a time, so it needs no lock of its own.
type gatherFile struct {
	vfs.File
	buf    []byte
	off    int64 // where buf's first byte goes in the file
	broken error // set when Closing could not write what was gathered
}

// flush writes what was gathered, and forgets it whether or not the
// write succeeded. A failure reaches SQLite as IOERR_WRITE from the call
// that asked for the flush (a commit's sync, a read), whatever the cause,
// a full disk too: the commit fails and its transaction is rolled back.
// Once closing has failed, every flush fails.
func (f *gatherFile) flush() error {
	if f.broken != nil {
		return f.broken
	}
	if len(f.buf) == 0 {
		return nil
	}
	calls.Add(1)
	_, err := f.File.WriteAt(f.buf, f.off)
	f.buf = f.buf[:0]
	if err != nil {
		return vfs.SystemError(err, sqlite3.IOERR_WRITE)
	}
	return nil
}

// closing writes what was gathered as the connection starts to close
// (Closing); if that fails, every later call on the file fails.
func (f *gatherFile) closing() {
	if err := f.flush(); err != nil {
		f.broken = err
	}
}

// drop forgets what was gathered, unwritten: the frames of a transaction
// rolled back.
func (f *gatherFile) drop() {
	if len(f.buf) > 0 {
		drops.Add(1)
		f.buf = f.buf[:0]
	}
}

func (f *gatherFile) WriteAt(p []byte, off int64) (int, error) {
	if f.broken != nil {
		return 0, f.broken
	}
	writes.Add(1)
	if len(f.buf) > 0 && (off != f.off+int64(len(f.buf)) || len(f.buf)+len(p) > maxGather) {
		if err := f.flush(); err != nil {
			return 0, err
		}
	}
	if len(p) >= maxGather {
		calls.Add(1)
		n, err := f.File.WriteAt(p, off)
		if err != nil {
			return n, vfs.SystemError(err, sqlite3.IOERR_WRITE)
		}
		return n, nil
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

// Close drops what is gathered: after a commit's sync nothing is, and
// anything else belongs to a transaction that did not commit.
func (f *gatherFile) Close() error {
	f.drop()
	return f.File.Close()
}
