package fsupload

import (
	"context"
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
	return eachFile(ctx, d, "upload directory "+s.path, func(name string) bool {
		return strings.HasPrefix(name, tempPrefix) || domain.IsUploadName(name)
	}, func(name string, mod time.Time) error {
		return fn(ports.StoredObject{Name: name, ModTime: mod, Temp: strings.HasPrefix(name, tempPrefix)})
	})
}

// eachFile calls fn with the name and modification time of each regular
// file of the open directory d whose name keep accepts, reading d a batch
// of entries at a time until it ends or ctx does; a file removed since d
// was read is passed over. where names d in errors.
func eachFile(ctx context.Context, d *os.File, where string, keep func(name string) bool, fn func(name string, mod time.Time) error) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		entries, rerr := d.ReadDir(1024)
		for _, e := range entries {
			if !keep(e.Name()) || !e.Type().IsRegular() {
				continue
			}
			info, err := e.Info()
			if errors.Is(err, fs.ErrNotExist) {
				continue // removed since the directory was read
			}
			if err != nil {
				return fmt.Errorf("stat %s in %s: %w", e.Name(), where, err)
			}
			if err := fn(e.Name(), info.ModTime()); err != nil {
				return err
			}
		}
		if errors.Is(rerr, io.EOF) {
			return nil
		}
		if rerr != nil {
			return fmt.Errorf("read %s: %w", where, rerr)
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
