package fsupload

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// Walk lists the published files (named as domain.IsUploadName says) and
// the temp files left by Saves that never finished, with their
// modification times. Other entries (probe files, subdirectories,
// anything an operator put there) are not the store's and are left out.
func (s *Store) Walk(ctx context.Context, fn func(ports.StoredObject) error) error {
	d, err := s.cur.Load().root.Open(".")
	if err != nil {
		return fmt.Errorf("open upload directory %s: %w", s.path, err)
	}
	defer d.Close()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		entries, rerr := d.ReadDir(1024)
		for _, e := range entries {
			name := e.Name()
			temp := strings.HasPrefix(name, tempPrefix)
			if !temp && !domain.IsUploadName(name) || !e.Type().IsRegular() {
				continue
			}
			info, err := e.Info()
			if errors.Is(err, fs.ErrNotExist) {
				continue // removed since the directory was read
			}
			if err != nil {
				return fmt.Errorf("stat %s in %s: %w", name, s.path, err)
			}
			if err := fn(ports.StoredObject{Name: name, ModTime: info.ModTime(), Temp: temp}); err != nil {
				return err
			}
		}
		if errors.Is(rerr, io.EOF) {
			return nil
		}
		if rerr != nil {
			return fmt.Errorf("read upload directory %s: %w", s.path, rerr)
		}
	}
}

// Exists reports whether a published file is there.
func (s *Store) Exists(_ context.Context, name string) (bool, error) {
	st, err := s.cur.Load().root.Stat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("stat %s in %s: %w", name, s.path, err)
	}
	return st.Mode().IsRegular(), nil
}

// RemoveLeftover deletes a temp file that Walk reported.
func (s *Store) RemoveLeftover(ctx context.Context, o ports.StoredObject) error {
	if !o.Temp || !strings.HasPrefix(o.Name, tempPrefix) || strings.ContainsRune(o.Name, '/') {
		return fmt.Errorf("%s is not a temp file of %s", o.Name, s.path)
	}
	return s.Remove(ctx, o.Name)
}
