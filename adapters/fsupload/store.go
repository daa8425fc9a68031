// Package fsupload keeps the reports' files in one upload directory,
// written durably and never replaced.
//
// A Save writes a temp file in the directory, fsyncs it, publishes it by
// a hard link (which fails rather than replace an existing name) and
// fsyncs the directory. Concurrent Saves share directory fsyncs: each
// waits for one that began after its link, so files published together
// cost one directory fsync, not one each.
package fsupload

import (
	"bufio"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// Store writes files inside its directory only (os.Root: no path, link or
// ".." can lead outside). Check notices when the directory at the
// configured path is no longer the one the store has open, and reopens it.
type Store struct {
	path string // absolute
	opt  Options
	cur  atomic.Pointer[handle]
	mu   sync.Mutex // serialises reopening
}

// Options tune a Store.
type Options struct {
	// MinFreeBytes is the free space below which Check fails (0: no
	// minimum).
	MinFreeBytes int64
	// Clock dates a file's move to quarantine (required).
	Clock ports.Clock
}

// handle is one opening of the upload directory.
type handle struct {
	root *os.Root
	sync *dirSync
}

var (
	_ ports.UploadStore     = (*Store)(nil)
	_ ports.UploadInventory = (*Store)(nil)
)

// fileMode is the mode of saved files: never executable.
const fileMode = 0o640

// tempPrefix starts the names of files being written.
const tempPrefix = ".tmp-"

// maxClashes bounds how far a Save moves the timestamp on while names
// are taken.
const maxClashes = 1000

// writeBlock is the size of the writes to a file: large blocks, whatever
// size the reader hands out.
const writeBlock = 256 << 10

// Open opens the upload directory. It must exist and be writable; the
// error says which. Free space is left to Check: a full disk is a state
// to report, not a reason to refuse to start.
func Open(dir string, opt Options) (*Store, error) {
	if opt.Clock == nil {
		return nil, errors.New("fsupload: Open needs Options.Clock")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("upload directory %s: %w", dir, err)
	}
	h, err := openHandle(abs)
	if err != nil {
		return nil, err
	}
	s := &Store{path: abs, opt: opt}
	s.cur.Store(h)
	if err := s.probe(h); err != nil {
		_ = h.close()
		return nil, err
	}
	return s, nil
}

func openHandle(path string) (*handle, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("upload directory %s: %w", path, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("upload directory %s is not a directory", path)
	}
	root, err := os.OpenRoot(path)
	if err != nil {
		return nil, fmt.Errorf("upload directory %s: %w", path, err)
	}
	d, err := root.Open(".")
	if err != nil {
		_ = root.Close()
		return nil, fmt.Errorf("upload directory %s: %w", path, err)
	}
	return &handle{root: root, sync: newDirSync(d)}, nil
}

func (h *handle) close() error { return errors.Join(h.sync.dir.Close(), h.root.Close()) }

// Close releases the directory.
func (s *Store) Close() error { return s.cur.Load().close() }

// Save writes f's content to a temp file, fsyncs it, publishes it with a
// hard link under domain.FileName (on a clash the timestamp moves on by a
// millisecond), removes the temp name and waits for a directory fsync
// that began after the link.
func (s *Store) Save(ctx context.Context, creditNumber string, at time.Time, f *domain.File) (name string, err error) {
	if !domain.ValidCreditNumber(creditNumber) {
		return "", fmt.Errorf("refusing file name for credit number %q", creditNumber)
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	h, err := s.current()
	if err != nil {
		return "", err
	}
	tmp := tempPrefix + rand.Text()
	if err := h.write(tmp, f); err != nil {
		_ = h.root.Remove(tmp)
		return "", err
	}
	defer func() {
		if rmErr := h.root.Remove(tmp); rmErr != nil && !errors.Is(rmErr, fs.ErrNotExist) && err == nil {
			err = fmt.Errorf("remove temp file in %s: %w", s.path, rmErr)
		}
	}()
	for i := 0; ; i++ {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		name = domain.FileName(creditNumber, at.Add(time.Duration(i)*time.Millisecond), f.Ext)
		err := h.root.Link(tmp, name)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) || i >= maxClashes {
			return "", fmt.Errorf("publish file in %s: %w", s.path, err)
		}
	}
	if err := h.sync.sync(); err != nil {
		_ = h.root.Remove(name)
		return "", fmt.Errorf("sync upload directory %s: %w", s.path, err)
	}
	return name, nil
}

// current is the directory to write to: the one open, unless the path
// now names another directory (replaced under the running service), which
// is then opened instead, so no file goes to a directory nobody reads.
// Two stats a Save, against a file's fsync.
func (s *Store) current() (*handle, error) {
	h := s.cur.Load()
	atPath, err := os.Stat(s.path)
	if err != nil {
		return nil, fmt.Errorf("upload directory %s is gone (removed or unreachable): %w", s.path, err)
	}
	if open, err := h.sync.dir.Stat(); err == nil && os.SameFile(open, atPath) {
		return h, nil
	}
	if err := s.reopen(h); err != nil {
		return nil, fmt.Errorf("upload directory %s was replaced; reopen: %w", s.path, err)
	}
	return s.cur.Load(), nil
}

// write creates the temp file, copies f's content into it in large
// blocks and fsyncs it.
func (h *handle) write(tmp string, f *domain.File) error {
	out, err := h.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fileMode)
	if err != nil {
		return fmt.Errorf("create temp file: %w", err)
	}
	bw := blockWriters.Get().(*bufio.Writer)
	// writerOnly hides the file's ReadFrom, which would copy in 32 KiB
	// steps; io.Copy still uses the reader's WriteTo when it has one.
	bw.Reset(writerOnly{out})
	n, err := io.Copy(bw, f.Reader())
	if err == nil {
		err = bw.Flush()
	}
	bw.Reset(nil)
	blockWriters.Put(bw)
	switch {
	case err != nil:
		err = fmt.Errorf("write file: %w", err)
	case n != f.Size:
		err = fmt.Errorf("write file: %d bytes written, %d expected", n, f.Size)
	default:
		if err = out.Sync(); err != nil {
			err = fmt.Errorf("sync file: %w", err)
		}
	}
	if cerr := out.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("close file: %w", cerr)
	}
	return err
}

var blockWriters = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, writeBlock) }}

type writerOnly struct{ io.Writer }

// Remove deletes a saved file; a missing one is no error. The removal is
// made durable too, so a file the sweep reported removed stays removed.
func (s *Store) Remove(_ context.Context, name string) error {
	h := s.cur.Load()
	if err := h.root.Remove(name); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("remove %s from %s: %w", name, s.path, err)
	}
	if err := h.sync.sync(); err != nil {
		return fmt.Errorf("sync upload directory %s: %w", s.path, err)
	}
	return nil
}
