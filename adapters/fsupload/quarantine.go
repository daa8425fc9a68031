package fsupload

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// quarantineDir is the quarantine, a subdirectory of the upload
// directory: Walk lists regular files only, so it never sees it, and a
// move into it is a hard link on the same file system (never a copy).
const quarantineDir = ".quarantine"

func quarantined(name string) string { return quarantineDir + "/" + name }

// Quarantine moves a published file into .quarantine/ by a hard link
// (which never replaces a file), dates it now (its modification time
// there is when it was quarantined) and then unlinks the published name;
// both directories are synced, so the move survives a crash.
func (s *Store) Quarantine(_ context.Context, name string) error {
	if err := domain.CheckUploadName(name); err != nil {
		return err
	}
	h := s.cur.Load()
	if err := h.root.Mkdir(quarantineDir, 0o750); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("create %s in %s: %w", quarantineDir, s.path, err)
	}
	err := h.root.Link(name, quarantined(name))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return domain.NewError(domain.ErrNotFound, "not_found", name+" is not published in "+s.path).WithCause(err)
	case errors.Is(err, fs.ErrExist):
		// Moved before by a run that stopped before the unlink? Then
		// both names are one file.
		a, errA := h.root.Stat(name)
		b, errB := h.root.Stat(quarantined(name))
		if errA != nil || errB != nil || !os.SameFile(a, b) {
			return fmt.Errorf("quarantine %s in %s: another file of that name is in quarantine", name, s.path)
		}
	case err != nil:
		return fmt.Errorf("quarantine %s in %s: %w", name, s.path, err)
	}
	now := s.opt.Clock.Now()
	if err := h.root.Chtimes(quarantined(name), now, now); err != nil {
		return fmt.Errorf("date %s in quarantine: %w", name, err)
	}
	if err := syncDir(h.root, quarantineDir); err != nil {
		return fmt.Errorf("sync %s in %s: %w", quarantineDir, s.path, err)
	}
	return s.Remove(context.Background(), name)
}

// WalkQuarantine lists the quarantined files with the time each was
// quarantined.
func (s *Store) WalkQuarantine(ctx context.Context, fn func(ports.StoredObject) error) error {
	d, err := s.cur.Load().root.Open(quarantineDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // nothing was ever quarantined here
	}
	if err != nil {
		return fmt.Errorf("open %s in %s: %w", quarantineDir, s.path, err)
	}
	defer d.Close()
	return eachFile(ctx, d, s.path+"/"+quarantineDir, domain.IsUploadName, func(name string, mod time.Time) error {
		return fn(ports.StoredObject{Name: name, ModTime: mod})
	})
}

// Unquarantine links a quarantined file back under its published name
// (a link never replaces a published file), syncs the directory, and
// removes it from quarantine. A published file of that name with the
// same content counts as the file back in place.
func (s *Store) Unquarantine(_ context.Context, name string) error {
	if err := domain.CheckUploadName(name); err != nil {
		return err
	}
	h := s.cur.Load()
	err := h.root.Link(quarantined(name), name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return domain.NewError(domain.ErrNotFound, "not_found", name+" is not in quarantine in "+s.path).WithCause(err)
	case errors.Is(err, fs.ErrExist):
		// The same file put back by other means (an upload backup
		// restored): in place already, so the quarantined copy goes.
		same, cerr := sameContent(h.root, quarantined(name), name)
		if cerr != nil || !same {
			return domain.NewError(domain.ErrConflict, "file_exists", name+" is published in "+s.path+" already, with other content; it was not replaced").WithCause(errors.Join(err, cerr))
		}
	case err != nil:
		return fmt.Errorf("move %s back from quarantine in %s: %w", name, s.path, err)
	}
	if err := h.sync.sync(); err != nil {
		return fmt.Errorf("sync upload directory %s: %w", s.path, err)
	}
	return s.RemoveQuarantined(context.Background(), name)
}

// RemoveQuarantined deletes a quarantined file, durably; a missing one
// is no error.
func (s *Store) RemoveQuarantined(_ context.Context, name string) error {
	if err := domain.CheckUploadName(name); err != nil {
		return err
	}
	h := s.cur.Load()
	if err := h.root.Remove(quarantined(name)); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("remove %s from %s/%s: %w", name, s.path, quarantineDir, err)
	}
	if err := syncDir(h.root, quarantineDir); err != nil {
		return fmt.Errorf("sync %s in %s: %w", quarantineDir, s.path, err)
	}
	return nil
}

// syncDir fsyncs a directory under root.
func syncDir(root *os.Root, dir string) error {
	d, err := root.Open(dir)
	if err != nil {
		return err
	}
	return errors.Join(d.Sync(), d.Close())
}

// sameContent reports whether two files under root hold the same bytes.
func sameContent(root *os.Root, a, b string) (bool, error) {
	fa, err := root.Open(a)
	if err != nil {
		return false, err
	}
	defer fa.Close()
	fb, err := root.Open(b)
	if err != nil {
		return false, err
	}
	defer fb.Close()
	ba, bb := make([]byte, 64<<10), make([]byte, 64<<10)
	for {
		na, errA := io.ReadFull(fa, ba)
		nb, errB := io.ReadFull(fb, bb)
		if na != nb || !bytes.Equal(ba[:na], bb[:nb]) {
			return false, nil
		}
		endA := errors.Is(errA, io.EOF) || errors.Is(errA, io.ErrUnexpectedEOF)
		endB := errors.Is(errB, io.EOF) || errors.Is(errB, io.ErrUnexpectedEOF)
		switch {
		case endA && endB:
			return true, nil
		case endA != endB:
			return false, nil
		case errA != nil:
			return false, errA
		case errB != nil:
			return false, errB
		}
	}
}
