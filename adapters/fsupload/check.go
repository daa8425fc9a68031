package fsupload

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
)

// Check says whether files can be written now. It fails when the
// directory at the configured path is gone or is no longer the one the
// store writes to (replaced: another device or inode), when it has less
// than MinFreeBytes free, or when a probe file cannot be created. On a
// replacement it reopens the directory now at the path, so later Saves go
// there; that Check still fails, since Saves until then went to the old
// one.
func (s *Store) Check(_ context.Context) error {
	h := s.cur.Load()
	if err := s.sameDir(h); err != nil {
		return err
	}
	if s.opt.MinFreeBytes > 0 {
		free, err := freeBytes(h.sync.dir)
		if err != nil {
			return fmt.Errorf("upload directory %s: free space: %w", s.path, err)
		}
		if free >= 0 && free < s.opt.MinFreeBytes {
			return fmt.Errorf("upload directory %s has %d bytes free, less than the %d required", s.path, free, s.opt.MinFreeBytes)
		}
	}
	return s.probe(h)
}

// sameDir compares the open directory with a fresh look at the path, and
// reopens the path when they differ.
func (s *Store) sameDir(h *handle) error {
	atPath, err := os.Stat(s.path)
	if err != nil {
		return fmt.Errorf("upload directory %s is gone (removed or unreachable): %w", s.path, err)
	}
	open, err := h.sync.dir.Stat()
	if err != nil {
		return fmt.Errorf("upload directory %s: stat the open directory: %w", s.path, err)
	}
	if os.SameFile(open, atPath) {
		return nil
	}
	replaced := fmt.Errorf("upload directory %s was replaced: the directory now at that path is not the one files were written to", s.path)
	if err := s.reopen(h); err != nil {
		return errors.Join(replaced, fmt.Errorf("reopen: %w", err))
	}
	return fmt.Errorf("%w; reopened it, files go to the new directory from now on", replaced)
}

// reopen opens the path again and makes it the store's directory, unless
// another Check did so since h was read. Saves still running on the old
// directory fail when it is closed.
func (s *Store) reopen(h *handle) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur.Load() != h {
		return nil
	}
	nh, err := openHandle(s.path)
	if err != nil {
		return err
	}
	if err := s.probe(nh); err != nil {
		_ = nh.close()
		return err
	}
	s.cur.Store(nh)
	_ = h.close()
	return nil
}

// probe creates and removes a file to prove the directory writable.
func (s *Store) probe(h *handle) error {
	name := ".probe-" + rand.Text()
	f, err := h.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fileMode)
	if err != nil {
		return fmt.Errorf("upload directory %s is not writable: %w", s.path, err)
	}
	if err := errors.Join(f.Close(), h.root.Remove(name)); err != nil {
		return fmt.Errorf("upload directory %s: remove probe file: %w", s.path, err)
	}
	return nil
}
