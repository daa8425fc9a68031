// Package fsupload keeps the reports' files in one upload directory,
// written durably and never replaced.
package fsupload

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// Store writes files inside its root only (os.Root: no path, link or ".."
// can lead outside).
type Store struct {
	dir  string
	root *os.Root
}

var (
	_ ports.UploadStore     = (*Store)(nil)
	_ ports.UploadInventory = (*Store)(nil)
)

// fileMode is the mode of saved files: never executable.
const fileMode = 0o640

// Open opens the upload directory. It must exist and be writable; the
// error says which.
func Open(dir string) (*Store, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("upload directory %s: %w", dir, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("upload directory %s is not a directory", dir)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("upload directory %s: %w", dir, err)
	}
	s := &Store{dir: dir, root: root}
	if err := s.Check(context.Background()); err != nil {
		_ = root.Close()
		return nil, err
	}
	return s, nil
}

// Close releases the directory.
func (s *Store) Close() error { return s.root.Close() }

// Check creates and removes a probe file to prove the directory writable.
func (s *Store) Check(_ context.Context) error {
	name := ".probe-" + randHex()
	f, err := s.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fileMode)
	if err != nil {
		return fmt.Errorf("upload directory %s is not writable: %w", s.dir, err)
	}
	return errors.Join(f.Close(), s.root.Remove(name))
}

// Save writes data to a temp file, fsyncs it, publishes it with a hard link
// (which fails rather than replace an existing name; on a clash the
// timestamp moves on by a millisecond), removes the temp name and fsyncs
// the directory.
func (s *Store) Save(ctx context.Context, creditNumber string, at time.Time, file *domain.File) (name string, err error) {
	ext, r := file.Ext, file.Reader()
	if !domain.ValidCreditNumber(creditNumber) {
		return "", fmt.Errorf("refusing file name for credit number %q", creditNumber)
	}
	tmp := tempPrefix + randHex()
	f, err := s.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fileMode)
	if err != nil {
		return "", fmt.Errorf("create temp file: %w", err)
	}
	defer func() {
		if rmErr := s.root.Remove(tmp); rmErr != nil && !errors.Is(rmErr, fs.ErrNotExist) && err == nil {
			err = fmt.Errorf("remove temp file: %w", rmErr)
		}
	}()
	buf := make([]byte, 256<<10)
	if _, err := io.CopyBuffer(f, r, buf); err != nil {
		_ = f.Close()
		return "", fmt.Errorf("write file: %w", err)
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return "", fmt.Errorf("sync file: %w", err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("close file: %w", err)
	}
	for i := 0; ; i++ {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		name = domain.FileName(creditNumber, at.Add(time.Duration(i)*time.Millisecond), ext)
		err := s.root.Link(tmp, name)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) || i >= 1000 {
			return "", fmt.Errorf("publish file: %w", err)
		}
	}
	if err := s.syncDir(); err != nil {
		_ = s.root.Remove(name)
		return "", err
	}
	return name, nil
}

func (s *Store) syncDir() error {
	d, err := s.root.Open(".")
	if err != nil {
		return fmt.Errorf("open upload directory: %w", err)
	}
	return errors.Join(d.Sync(), d.Close())
}

// Remove deletes a saved file.
func (s *Store) Remove(_ context.Context, name string) error {
	if err := s.root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove %s: %w", name, err)
	}
	return s.syncDir()
}

func randHex() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// tempPrefix starts the names of files being written.
const tempPrefix = ".tmp-"

// Walk lists the published files (partner_*) and the temp files left by
// writes that never finished.
func (s *Store) Walk(ctx context.Context, fn func(ports.StoredObject) error) error {
	d, err := s.root.Open(".")
	if err != nil {
		return fmt.Errorf("open upload directory: %w", err)
	}
	defer d.Close()
	for {
		entries, err := d.ReadDir(1024)
		for _, e := range entries {
			name := e.Name()
			temp := strings.HasPrefix(name, tempPrefix)
			if !temp && !strings.HasPrefix(name, "partner_") || !e.Type().IsRegular() {
				continue
			}
			info, err := e.Info()
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return err
			}
			if err := fn(ports.StoredObject{Name: name, ModTime: info.ModTime(), Temp: temp}); err != nil {
				return err
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read upload directory: %w", err)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}

// Exists reports whether a published file is there.
func (s *Store) Exists(_ context.Context, name string) (bool, error) {
	_, err := s.root.Stat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// RemoveLeftover deletes a temp file that Walk reported.
func (s *Store) RemoveLeftover(ctx context.Context, o ports.StoredObject) error {
	if !strings.HasPrefix(o.Name, tempPrefix) {
		return fmt.Errorf("%s is not a temp file", o.Name)
	}
	return s.Remove(ctx, o.Name)
}
